using Azure.Core.Serialization;
using Microsoft.Azure.Functions.Worker;
using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using StorageBench.Engine;
using StorageBench.Functions;

var builder = FunctionsApplication.CreateBuilder(args);
builder.ConfigureFunctionsWebApplication();

// The worker's own logs and dependencies go to Application Insights; ConfigureFunctionsApplicationInsights
// reads APPLICATIONINSIGHTS_AUTHENTICATION_STRING for AAD ingestion. Adaptive sampling is off so nothing is
// dropped (the benchmark's events go through TelemetryEmitter, which never samples).
builder.Services
    .AddApplicationInsightsTelemetryWorkerService(o => o.EnableAdaptiveSampling = false)
    .ConfigureFunctionsApplicationInsights();

// One JSON shape on both sides of the orchestration boundary: Durable's DataConverter wraps this serializer.
builder.Services.Configure<WorkerOptions>(o => o.Serializer = new JsonObjectSerializer(JsonDefaults.Compact));

builder.Services.AddStorageBench();

builder.Build().Run();

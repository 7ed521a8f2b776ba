using Azure.Core.Serialization;
using Microsoft.Azure.Functions.Worker;
using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using StorageBench.Engine;
using StorageBench.Functions;

var builder = FunctionsApplication.CreateBuilder(args);
builder.ConfigureFunctionsWebApplication();

builder.Services.AddWorkerTelemetry();

// One JSON shape on both sides of the orchestration boundary: Durable's DataConverter wraps this serializer.
builder.Services.Configure<WorkerOptions>(o => o.Serializer = new JsonObjectSerializer(JsonDefaults.Compact));

builder.Services.AddStorageBench();

builder.Build().Run();

using Azure.Core.Serialization;
using Microsoft.Azure.Functions.Worker;
using Microsoft.Azure.Functions.Worker.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Functions;

// A worker that runs slices for hours keeps its native heap flat, as the CLI's does (NativeHeap says why).
NativeHeap.Configure();

var builder = FunctionsApplication.CreateBuilder(args);
builder.ConfigureFunctionsWebApplication();

builder.Services.AddWorkerTelemetry();

// One JSON shape on both sides of the orchestration boundary: Durable's DataConverter wraps this serializer.
builder.Services.Configure<WorkerOptions>(o => o.Serializer = new JsonObjectSerializer(JsonDefaults.Compact));

builder.Services.AddStorageBench();

builder.Build().Run();

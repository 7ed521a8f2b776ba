// Mirrors Microsoft.Azure.Functions.Worker.Core 2.51.0 (via Microsoft.Azure.Functions.Worker 2.51.0).
// Transcribed from: Azure/azure-functions-dotnet-worker src/DotNetWorker.Core/Hosting/WorkerOptions.cs. COMPILE-ONLY: only Serializer,
// which the Durable extension turns into its DataConverter (FunctionsWorkerApplicationBuilderExtensions.PostConfigure*Options).
using Azure.Core.Serialization;
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

public class WorkerOptions
{
    public ObjectSerializer? Serializer
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        set => throw new NotSupportedException(CompileOnly.Message);
    }
}

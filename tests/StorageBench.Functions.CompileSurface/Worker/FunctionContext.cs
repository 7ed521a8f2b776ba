// Mirrors Microsoft.Azure.Functions.Worker.Core 2.51.0 (via Microsoft.Azure.Functions.Worker 2.51.0).
// Transcribed from: Azure/azure-functions-dotnet-worker src/DotNetWorker.Core/Context/FunctionContext.cs, and for
// CancellationToken (newer than the stored copy) learn.microsoft.com/dotnet/api/microsoft.azure.functions.worker.functioncontext.cancellationtoken
// ("public virtual System.Threading.CancellationToken CancellationToken { get; }"). COMPILE-ONLY: only the member the app uses.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

public abstract class FunctionContext
{
    public virtual CancellationToken CancellationToken => throw new NotSupportedException(CompileOnly.Message);
}

// Mirrors Microsoft.Azure.Functions.Worker 2.51.0 (the FunctionAttribute it brings in): namespace Microsoft.Azure.Functions.Worker.
// Transcribed from: its source file is not in the stored copy of Azure/azure-functions-dotnet-worker; the signature is the one
// every isolated-worker function uses, e.g. Azure-Samples/functions-quickstart-dotnet-azd http/httpPostBodyFunction.cs
// ([Function("httppost")] on a method). COMPILE-ONLY: no behaviour.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

[AttributeUsage(AttributeTargets.Method)]
public sealed class FunctionAttribute : Attribute
{
    public FunctionAttribute(string name) => throw new NotSupportedException(CompileOnly.Message);
}

// Mirrors Microsoft.Azure.Functions.Worker.Extensions.Http (brought in by Microsoft.Azure.Functions.Worker.Extensions.Http.AspNetCore 2.1.0):
// namespace Microsoft.Azure.Functions.Worker. Transcribed from: HttpTriggerAttribute.cs of Azure/azure-functions-dotnet-worker
// extensions/Worker.Extensions.Http (stored copy id 1927516981; it derives from TriggerBindingAttribute, parameter-targeted).
// AuthorizationLevel: Anonymous, User, Function, System, Admin; the app uses Function only. COMPILE-ONLY: no behaviour.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

public enum AuthorizationLevel
{
    Function = 2,
}

[AttributeUsage(AttributeTargets.Parameter)]
public sealed class HttpTriggerAttribute : Attribute
{
    public HttpTriggerAttribute(AuthorizationLevel authLevel, params string[] methods) => throw new NotSupportedException(CompileOnly.Message);

    public string? Route
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        set => throw new NotSupportedException(CompileOnly.Message);
    }
}

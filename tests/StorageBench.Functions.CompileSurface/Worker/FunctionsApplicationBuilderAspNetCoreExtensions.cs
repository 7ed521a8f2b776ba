// Mirrors Microsoft.Azure.Functions.Worker.Extensions.Http.AspNetCore 2.1.0: namespace Microsoft.Azure.Functions.Worker.Builder.
// Transcribed from: Azure/azure-functions-dotnet-worker extensions/Worker.Extensions.Http.AspNetCore/src/FunctionsApplicationBuilderAspNetCoreExtensions.cs
// (newest stored version; an older one had namespace Microsoft.Extensions.Hosting). COMPILE-ONLY: no behaviour.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker.Builder;

public static class FunctionsApplicationBuilderAspNetCoreExtensions
{
    public static FunctionsApplicationBuilder ConfigureFunctionsWebApplication(this FunctionsApplicationBuilder builder) =>
        throw new NotSupportedException(CompileOnly.Message);
}

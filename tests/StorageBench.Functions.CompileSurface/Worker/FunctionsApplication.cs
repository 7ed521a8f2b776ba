// Mirrors Microsoft.Azure.Functions.Worker 2.51.0: namespace Microsoft.Azure.Functions.Worker.Builder.
// Transcribed from: Azure/azure-functions-dotnet-worker src/DotNetWorker/Builder/FunctionsApplication.cs and
// src/DotNetWorker/Builder/FunctionsApplicationBuilder.cs. COMPILE-ONLY: the real builder also implements
// IHostApplicationBuilder and IFunctionsWorkerApplicationBuilder; the app uses neither, only Services and Build().
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker.Builder;

public class FunctionsApplication
{
    public static FunctionsApplicationBuilder CreateBuilder(string[] args) => throw new NotSupportedException(CompileOnly.Message);
}

public class FunctionsApplicationBuilder
{
    internal FunctionsApplicationBuilder() => throw new NotSupportedException(CompileOnly.Message);

    public IServiceCollection Services => throw new NotSupportedException(CompileOnly.Message);

    public IHost Build() => throw new NotSupportedException(CompileOnly.Message);
}

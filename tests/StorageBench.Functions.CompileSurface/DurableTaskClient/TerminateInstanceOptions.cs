// Mirrors Microsoft.DurableTask.Client (1.x, via Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5): namespace Microsoft.DurableTask.Client.
// Transcribed from: microsoft/durabletask-dotnet src/Client/Core/TerminateInstanceOptions.cs. The stored versions differ (a positional
// record with Recursive = false; a class-like record whose constructor defaults recursive to true), so the app sets both
// properties by initializer, which compiles against either. COMPILE-ONLY: no behaviour.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.DurableTask.Client;

public record TerminateInstanceOptions
{
    public TerminateInstanceOptions(object? Output = null, bool Recursive = false) => throw new NotSupportedException(CompileOnly.Message);

    public object? Output
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        init => throw new NotSupportedException(CompileOnly.Message);
    }

    public bool Recursive
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        init => throw new NotSupportedException(CompileOnly.Message);
    }
}

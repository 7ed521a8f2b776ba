// Mirrors Microsoft.DurableTask.Abstractions (1.x, via Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5): namespace Microsoft.DurableTask.
// Transcribed from: microsoft/durabletask-dotnet src/Abstractions/TaskFailedException.cs (commit ac8e2e31) and TaskFailureDetails.cs
// (commit 6a1f434e). Both activity and sub-orchestration failures surface as TaskFailedException
// (src/Worker/Core/Shims/TaskOrchestrationContextWrapper.cs). COMPILE-ONLY: only the members the app reads.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.DurableTask;

public sealed class TaskFailedException : Exception
{
    private TaskFailedException() => throw new NotSupportedException(CompileOnly.Message);

    public TaskFailureDetails FailureDetails => throw new NotSupportedException(CompileOnly.Message);
}

/// <summary>A positional record in the real package: (ErrorType, ErrorMessage, StackTrace, InnerFailure, Properties).</summary>
public record TaskFailureDetails
{
    private TaskFailureDetails() => throw new NotSupportedException(CompileOnly.Message);

    public string ErrorType => throw new NotSupportedException(CompileOnly.Message);

    public string ErrorMessage => throw new NotSupportedException(CompileOnly.Message);

    public string? StackTrace => throw new NotSupportedException(CompileOnly.Message);

    public TaskFailureDetails? InnerFailure => throw new NotSupportedException(CompileOnly.Message);
}

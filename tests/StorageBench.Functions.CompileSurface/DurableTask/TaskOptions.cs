// Mirrors Microsoft.DurableTask.Abstractions (1.x, via Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5): namespace Microsoft.DurableTask.
// Transcribed from: microsoft/durabletask-dotnet src/Abstractions/TaskOptions.cs (commit 89a5fef9: TaskOptions, SubOrchestrationOptions,
// StartOrchestrationOptions) and src/Abstractions/TaskRetryOptions.cs (only named here: it is in the constructors' signatures).
// COMPILE-ONLY: the constructors and the one property the app uses; SubOrchestrationOptions' constructor chains to TaskOptions(retry).
using StorageBench.Functions.CompileSurface;

namespace Microsoft.DurableTask;

public record TaskOptions
{
    public TaskOptions(TaskRetryOptions? retry) => throw new NotSupportedException(CompileOnly.Message);
}

public record SubOrchestrationOptions : TaskOptions
{
    public SubOrchestrationOptions(TaskRetryOptions? retry = null, string? instanceId = null)
        : base(retry) => throw new NotSupportedException(CompileOnly.Message);

    public string? InstanceId
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        init => throw new NotSupportedException(CompileOnly.Message);
    }
}

/// <summary>A positional record in the real package: StartOrchestrationOptions(string? InstanceId = null, DateTimeOffset? StartAt = null).</summary>
public record StartOrchestrationOptions
{
    public StartOrchestrationOptions(string? InstanceId = null, DateTimeOffset? StartAt = null) => throw new NotSupportedException(CompileOnly.Message);
}

public class TaskRetryOptions
{
    private TaskRetryOptions() => throw new NotSupportedException(CompileOnly.Message);
}

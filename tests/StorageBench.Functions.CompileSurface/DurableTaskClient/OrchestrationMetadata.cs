// Mirrors Microsoft.DurableTask.Client (1.x, via Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5): namespace Microsoft.DurableTask.Client
// (learn.microsoft.com/dotnet/api/microsoft.durabletask.client.orchestrationmetadata; the app also imports Microsoft.DurableTask, where
// older versions had it). Transcribed from: microsoft/durabletask-dotnet src/Client/Core/OrchestrationMetadata.cs (commit 3bfb535a).
// COMPILE-ONLY: the properties the app reads.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.DurableTask.Client;

public sealed class OrchestrationMetadata
{
    private OrchestrationMetadata() => throw new NotSupportedException(CompileOnly.Message);

    public string Name => throw new NotSupportedException(CompileOnly.Message);

    public string InstanceId => throw new NotSupportedException(CompileOnly.Message);

    public OrchestrationRuntimeStatus RuntimeStatus => throw new NotSupportedException(CompileOnly.Message);

    public DateTimeOffset CreatedAt => throw new NotSupportedException(CompileOnly.Message);

    public DateTimeOffset LastUpdatedAt => throw new NotSupportedException(CompileOnly.Message);

    public string? SerializedInput => throw new NotSupportedException(CompileOnly.Message);

    public string? SerializedOutput => throw new NotSupportedException(CompileOnly.Message);

    public string? SerializedCustomStatus => throw new NotSupportedException(CompileOnly.Message);

    public TaskFailureDetails? FailureDetails => throw new NotSupportedException(CompileOnly.Message);
}

/// <summary>Real values; the obsolete ContinuedAsNew (2) and Canceled (4), and Running (0), are not used by the app.</summary>
public enum OrchestrationRuntimeStatus
{
    Completed = 1,
    Failed = 3,
    Terminated = 5,
    Pending = 6,
}

namespace StorageBench.Orchestration.Activities;

/// <summary>
/// An activity stopped by its host's shutdown (scale-in, deployment, platform update, a stopped worker) while its run was
/// not canceled: it hands back no result, so the host abandons the work item and Durable runs the activity again. The
/// Function App's host does that for any activity that fails while it stops (the Durable extension aborts the
/// execution); the local task hub does the same (TaskRegistry). A canceled run is not this: its slices hand back what they measured.
/// </summary>
public sealed class HostStoppingException : OperationCanceledException
{
    public HostStoppingException()
    {
    }

    public HostStoppingException(string message) : base(message)
    {
    }

    public HostStoppingException(string message, Exception inner) : base(message, inner)
    {
    }
}

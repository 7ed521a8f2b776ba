using System.Text.Json;
using StorageBench.Engine;

namespace StorageBench.Orchestration.Hosting;

/// <summary>The episode loop: replay the whole history, record and dispatch what is new, wait for completions, until the orchestrator ends.</summary>
public sealed partial class InProcessOrchestrationHost
{
    private void Start(OrchestrationInstance instance) => _ = Task.Run(() => RunInstanceAsync(instance), CancellationToken.None);

    /// <summary>Episode after episode: replay the whole history, record and dispatch what is new, wait for completions.</summary>
    private async Task RunInstanceAsync(OrchestrationInstance instance)
    {
        var orchestrator = _orchestrators[instance.Name];
        instance.Update(RuntimeStatus.Running);
        instance.Append([new OrchestratorStarted(Now), new ExecutionStarted(instance.Name, instance.Input)]);
        int replayed = 0;
        try
        {
            while (true)
            {
                var episode = Replay(instance, orchestrator, replayed);
                instance.CustomStatus = episode.CustomStatus;
                if (episode.Done)
                {
                    Complete(instance, episode.Output, episode.Failure is { } f ? $"{FailureDetails.ShortName(f.ErrorType)}: {f.ErrorMessage}" : null, details: episode.Failure);
                    return;
                }
                foreach (var action in episode.NewActions)
                {
                    instance.Append([action.Kind == ActionKind.Activity
                        ? new TaskScheduled(action.Id, action.Name, action.Input)
                        : new SubOrchestrationCreated(action.Id, action.Name, action.InstanceId!, action.Input)]);
                    Dispatch(instance, action);
                }
                replayed = instance.HistoryCount;
                var batch = new List<HistoryEvent> { await instance.Inbox.Reader.ReadAsync(instance.Terminate.Token).ConfigureAwait(false) };
                while (instance.Inbox.Reader.TryRead(out var more))
                {
                    batch.Add(more);
                }
                instance.Terminate.Token.ThrowIfCancellationRequested();
                if (batch.OfType<LateViolation>().FirstOrDefault() is { } violation)
                {
                    throw new NonDeterministicOrchestrationException(violation.Message);
                }
                instance.Append([new OrchestratorStarted(Now), .. batch]);
                instance.Update(RuntimeStatus.Running);
            }
        }
        catch (OperationCanceledException) when (instance.Terminate.IsCancellationRequested)
        {
            Complete(instance, JsonSerializer.Serialize(instance.TerminateReason, JsonDefaults.Compact), null, RuntimeStatus.Terminated);
        }
        catch (Exception ex)
        {
            Complete(instance, null, $"{ex.GetType().Name}: {ex.Message}", details: FailureDetails.FromException(ex));
        }
    }

    /// <summary>
    /// Runs the orchestrator from the start on a single-threaded context, feeding it the history in
    /// order, as Durable Task's replay does; events before <paramref name="replayed"/> are replay.
    /// </summary>
    private static Episode Replay(OrchestrationInstance instance, Func<IRunOrchestrationContext, string?, Task<string?>> orchestrator, int replayed)
    {
        var history = instance.History;
        var sync = new EpisodeSynchronizationContext(message => instance.Inbox.Writer.TryWrite(new LateViolation(message)));
        var context = new ReplayContext(instance.Id, sync);
        var previous = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(sync);
        Task<string?>? run = null;
        try
        {
            for (int i = 0; i < history.Count; i++)
            {
                context.IsReplaying = i < replayed;
                switch (history[i])
                {
                    case OrchestratorStarted e:
                        context.CurrentUtcDateTime = e.Timestamp;
                        break;
                    case ExecutionStarted e:
                        run = orchestrator(context, e.Input);
                        break;
                    case TaskScheduled e:
                        context.Match(e.EventId, ActionKind.Activity, e.Name, null, e.Input);
                        break;
                    case SubOrchestrationCreated e:
                        context.Match(e.EventId, ActionKind.SubOrchestration, e.Name, e.InstanceId, e.Input);
                        break;
                    case TaskCompleted e:
                        context.Complete(e.ScheduledId, e.Result);
                        break;
                    case SubOrchestrationCompleted e:
                        context.Complete(e.ScheduledId, e.Result);
                        break;
                    case TaskFailed e:
                        context.Fail(e.ScheduledId, e.Failure);
                        break;
                    case SubOrchestrationFailed e:
                        context.Fail(e.ScheduledId, e.Failure);
                        break;
                }
                sync.Pump();
                if (sync.Violation is { } violation)
                {
                    throw new NonDeterministicOrchestrationException(violation);
                }
            }
        }
        finally
        {
            sync.Close();
            SynchronizationContext.SetSynchronizationContext(previous);
        }
        if (run is null)
        {
            throw new InvalidOperationException($"instance {instance.Id} has no ExecutionStarted event");
        }
        if (run.IsCompleted)
        {
            return run.IsCompletedSuccessfully
                ? new Episode(true, run.Result, null, [], context.CustomStatus)
                : new Episode(true, null, FailureDetails.FromException(run.Exception!.InnerException!), [], context.CustomStatus);
        }
        return new Episode(false, null, null, context.NewActions(), context.CustomStatus);
    }

    /// <param name="details">The orchestrator's own exception, when it threw: the parent receives its type, message, stack and inner failure.</param>
    private void Complete(OrchestrationInstance instance, string? output, string? failure, string status = RuntimeStatus.Completed, FailureDetails? details = null)
    {
        if (failure is null && status == RuntimeStatus.Completed
            && Exceeds(new PayloadRecord("orchestration output", instance.Name, PayloadBudget.SizeOf(output))) is { } tooBig)
        {
            (output, failure) = (null, tooBig);
        }
        instance.Append([new ExecutionCompleted(output, failure)]);
        instance.Output = output;
        instance.Failure = failure;
        instance.Update(failure is not null ? RuntimeStatus.Failed : status);
        instance.Done.TrySetResult();
        if (instance.Parent is { } parent)
        {
            parent.Inbox.Writer.TryWrite(failure is null && status == RuntimeStatus.Completed
                ? new SubOrchestrationCompleted(instance.ParentEventId, output ?? "null")
                : new SubOrchestrationFailed(instance.ParentEventId, details ?? new FailureDetails(typeof(Exception).FullName!, failure ?? $"{status}: {instance.TerminateReason}", null, null)));
        }
    }
}

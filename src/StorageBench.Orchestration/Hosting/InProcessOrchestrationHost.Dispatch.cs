
namespace StorageBench.Orchestration.Hosting;

/// <summary>Dispatch: what an episode scheduled runs here — activities on the pool within their slots, sub-orchestrations as child instances — and every payload is held to the budget.</summary>
public sealed partial class InProcessOrchestrationHost
{
    private void Dispatch(OrchestrationInstance instance, PendingAction action)
    {
        if (action.Kind == ActionKind.Activity)
        {
            _ = Task.Run(() => RunActivityAsync(instance, action), CancellationToken.None);
            return;
        }
        string? refusal = !_orchestrators.ContainsKey(action.Name) ? $"No orchestrator named {action.Name} is registered"
            : Exceeds(new PayloadRecord("sub-orchestration input", action.Name, PayloadBudget.SizeOf(action.Input)));
        var child = new OrchestrationInstance(action.InstanceId!, action.Name, action.Input, _time, instance, action.Id, _shutdown);
        if (refusal is null && !_instances.TryAdd(child.Id, child))
        {
            refusal = $"an orchestration instance with id {child.Id} already exists";
        }
        if (refusal is not null)
        {
            instance.Inbox.Writer.TryWrite(new SubOrchestrationFailed(action.Id, new FailureDetails(typeof(InvalidOperationException).FullName!, refusal, null, null)));
            return;
        }
        Start(child);
    }

    private async Task RunActivityAsync(OrchestrationInstance instance, PendingAction action)
    {
        HistoryEvent result;
        try
        {
            if (!_activities.TryGetValue(action.Name, out var activity))
            {
                throw new InvalidOperationException($"No activity named {action.Name} is registered");
            }
            Enforce(new PayloadRecord("activity input", action.Name, PayloadBudget.SizeOf(action.Input)));
            var ct = activity.AfterShutdown ? instance.Terminate.Token : instance.ActivityToken;
            await _activitySlots.WaitAsync(ct).ConfigureAwait(false);
            try
            {
                string output = "null";
                for (int run = 0, runs = Math.Max(1, ExecutionsOf?.Invoke(action.Name) ?? 1); run < runs; run++)
                {
                    // Off the orchestrator's thread, as a separate worker would run it.
                    output = await Task.Run(() => activity.Run(action.Input, ct), ct).ConfigureAwait(false);
                }
                Enforce(new PayloadRecord("activity output", action.Name, PayloadBudget.SizeOf(output)));
                result = new TaskCompleted(action.Id, output);
            }
            finally
            {
                _activitySlots.Release();
            }
        }
        catch (Exception ex)
        {
            // Type, message, stack and inner failure: what Durable Task keeps of an activity's exception.
            result = new TaskFailed(action.Id, FailureDetails.FromException(ex));
            _logger.ActivityFailed(ex, action.Name, instance.Id);
        }
        instance.Inbox.Writer.TryWrite(result);
    }

    private void Enforce(PayloadRecord payload)
    {
        if (Exceeds(payload) is not null)
        {
            throw new PayloadBudgetExceededException(payload);
        }
    }

    /// <summary>Reports the payload to the observer; returns why it is refused, or null within budget.</summary>
    private string? Exceeds(PayloadRecord payload)
    {
        PayloadObserver?.Invoke(payload);
        return payload.Bytes > PayloadBudget.MaxBytes ? new PayloadBudgetExceededException(payload).Message : null;
    }
}

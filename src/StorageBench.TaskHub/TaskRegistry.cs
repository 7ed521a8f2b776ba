using DurableTask.Core;
using DurableTask.Core.Exceptions;
using Microsoft.DurableTask.Worker.Shims;
using Microsoft.Extensions.Logging;
using StorageBench.Orchestration;

namespace StorageBench.TaskHub;

/// <summary>
/// The orchestrators and activities a worker runs, by name, as plain delegates over the project's types; the task hub
/// turns each into DurableTask.Core's TaskOrchestration/TaskActivity through durabletask-dotnet's shims, which give the
/// orchestrators a real <see cref="Microsoft.DurableTask.TaskOrchestrationContext"/>. Changed only before the hub starts.
/// </summary>
/// <param name="logger">Where an activity's exception is logged whole (event 2004), as the Functions host logs a failed activity; none when not given.</param>
public sealed class TaskRegistry(ILogger? logger = null)
{
    private readonly Dictionary<string, Func<DurableTaskShimFactory, TaskOrchestration>> _orchestrators = new(StringComparer.Ordinal);
    private readonly Dictionary<string, Func<DurableTaskShimFactory, CancellationToken, TaskActivity>> _activities = new(StringComparer.Ordinal);

    /// <summary>
    /// How many times an activity runs for one call (default once). Durable Task runs activities at least once; a test
    /// sets 2 to check that an activity that ran twice does not count twice. The orchestrator receives the last result.
    /// </summary>
    public Func<string, int>? ExecutionsOf { get; set; }

    /// <summary>
    /// What an activity hands back, given its name and what its code returned (default: that). A test widens a slice's figures
    /// here, so the orchestrations merge and carry them as they would a long, fast slice's.
    /// </summary>
    public Func<string, object?, object?>? HandBack { get; set; }

    private int _running;

    /// <summary>Activities running now, of every hub this registry was given to: a hub that stops while some are waits for them to hand back.</summary>
    public int Running => Volatile.Read(ref _running);

    public IEnumerable<string> Orchestrators => _orchestrators.Keys;

    public IEnumerable<string> Activities => _activities.Keys;

    public TaskRegistry AddOrchestrator<TIn, TOut>(string name, Func<Microsoft.DurableTask.TaskOrchestrationContext, TIn, Task<TOut>> orchestrator)
    {
        // No ConfigureAwait(false): orchestrator continuations must stay on the orchestration's own scheduler.
        _orchestrators[name] = shims => shims.CreateOrchestration<TIn, TOut>(name, async (context, input) =>
            await orchestrator(context, input ?? throw new InvalidOperationException($"{context.InstanceId} was started without a {typeof(TIn).Name}")));
        return this;
    }

    /// <summary>
    /// Adds (or, for a test, replaces) the code behind an activity name. The token stops it only when the worker itself
    /// stops; whatever the activity then throws abandons its work item (Durable runs it again) instead of failing it.
    /// </summary>
    public TaskRegistry AddActivity<TIn, TOut>(string name, Func<TIn, CancellationToken, Task<TOut>> activity)
    {
        _activities[name] = (shims, stopping) => shims.CreateActivity<TIn, TOut>(name, async (context, input) =>
        {
            Interlocked.Increment(ref _running);
            try
            {
                TOut result = default!;
                for (int run = 0, runs = Math.Max(1, ExecutionsOf?.Invoke(name) ?? 1); run < runs; run++)
                {
                    result = await activity(input!, stopping).ConfigureAwait(false);
                }
                return HandBack is { } handBack ? (TOut)handBack(name, result)! : result;
            }
            catch (Exception ex) when (stopping.IsCancellationRequested)
            {
                // This worker is stopping: whatever the activity did meanwhile is no outcome. Aborted, its message goes back to the
                // hub and it runs again on another worker, as the Durable Functions extension does when its host stops; reported
                // as failed, an OperationCanceledException would read as the run being canceled.
                throw new SessionAbortedException($"{name} was stopped by its worker stopping; it runs again on another worker", ex);
            }
            catch (Exception ex)
            {
                // The orchestrator gets the failure's details; the log gets the exception itself.
                logger?.ActivityFailed(ex, name, context.InstanceId);
                throw;
            }
            finally
            {
                Interlocked.Decrement(ref _running);
            }
        });
        return this;
    }

    internal ObjectCreator<TaskOrchestration>[] OrchestrationCreators(DurableTaskShimFactory shims) =>
        [.. _orchestrators.Select(o => new Creator<TaskOrchestration>(o.Key, () => o.Value(shims)))];

    internal ObjectCreator<TaskActivity>[] ActivityCreators(DurableTaskShimFactory shims, CancellationToken stopping) =>
        [.. _activities.Select(a => new Creator<TaskActivity>(a.Key, () => a.Value(shims, stopping)))];

    /// <summary>A fresh object per execution, under the name the orchestrators call it by (unversioned, as in Durable Functions).</summary>
    private sealed class Creator<T> : ObjectCreator<T>
    {
        private readonly Func<T> _create;

        public Creator(string name, Func<T> create)
        {
            Name = name;
            Version = "";
            _create = create;
        }

        public override T Create() => _create();
    }
}

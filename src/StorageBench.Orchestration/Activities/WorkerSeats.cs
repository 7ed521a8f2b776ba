namespace StorageBench.Orchestration.Activities;

/// <summary>
/// The slices of each step this worker process runs now: a slice takes a seat before it starts and gives it back when it
/// ends, and a slice that finds all of its step's seats taken here (the order's cap) does not run here: it hands its order
/// back (<see cref="SliceOutcome.Refused"/>) and the step calls it again, for another worker to take. One per worker
/// (a `storagebench worker`, the CLI's own worker, a Function App instance), so the cap holds per process in both hosts.
/// </summary>
/// <param name="worker">This worker's name in results: machine and process id.</param>
public sealed class WorkerSeats(string worker)
{
    private readonly Dictionary<(string Step, string Workload), Held> _held = [];

    public string Worker { get; } = worker;

    /// <summary>This process as a worker: "machine/pid", as a slice result names it.</summary>
    public static string ProcessWorker => $"{Environment.MachineName}/{Environment.ProcessId}";

    /// <summary>
    /// A seat for a slice, unless <paramref name="cap"/> slices of its step and workload run here, or (a first execution)
    /// <paramref name="cap"/> other slices of it started here: a seat that frees when a slice ends early is not taken by a
    /// late one, so a step's slices stay spread (no cap: always). Waited is true when slices of the same step ended here
    /// before this one got its seat: it was queued behind this worker's activity limit, not behind the start delay.
    /// </summary>
    /// <param name="rerun">An earlier execution of the slice ran (its worker died or stopped): only the running slices count.</param>
    public Seat? TryTake(string stepId, string workload, int slice, int? cap, bool rerun = false)
    {
        lock (_held)
        {
            var key = (stepId, workload);
            if (!_held.TryGetValue(key, out var held))
            {
                _held[key] = held = new Held();
            }
            bool again = held.Running.Contains(slice) || held.Started.Contains(slice);
            if (cap is { } n && !again && (held.Running.Count >= n || (!rerun && held.Started.Count >= n)))
            {
                return null;
            }
            held.Running.Add(slice);
            held.Started.Add(slice);
            return new Seat(this, key, slice, held.Ended > 0);
        }
    }

    /// <summary>Whether a first execution of another slice of the step would be refused here (its cap's slices started here).</summary>
    public bool Spent(string stepId, string workload, int? cap)
    {
        lock (_held)
        {
            return cap is { } n && _held.TryGetValue((stepId, workload), out var held) && held.Started.Count >= n;
        }
    }

    /// <summary>How many slices of the step run here now.</summary>
    public int Running(string stepId, string workload)
    {
        lock (_held)
        {
            return _held.TryGetValue((stepId, workload), out var held) ? held.Running.Count : 0;
        }
    }

    private void Release((string Step, string Workload) key, int slice)
    {
        lock (_held)
        {
            if (_held.TryGetValue(key, out var held) && held.Running.Remove(slice))
            {
                held.Ended++;
            }
        }
    }

    private sealed class Held
    {
        public HashSet<int> Running { get; } = [];

        public HashSet<int> Started { get; } = [];
        public int Ended { get; set; }
    }

    /// <summary>A slice's seat on this worker, given back when disposed.</summary>
    public sealed class Seat(WorkerSeats seats, (string, string) key, int slice, bool waited) : IDisposable
    {
        public bool WaitedForWorker { get; } = waited;

        public void Dispose() => seats.Release(key, slice);
    }
}

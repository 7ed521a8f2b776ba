using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>
/// One tableRead slice on the engine's loop: one operation is one read — a point read, or a query whose later pages go out
/// as the previous one returns (only its first page has a slot in the schedule) — and its units are the entities returned;
/// every one is checked against what was seeded.
/// </summary>
internal static class TableReadSlice
{
    public static async Task<SliceResult> RunAsync(TableReadSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger)
    {
        var spec = plan.Workload;
        var seeded = new SeededEntities(spec);
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        var reads = new SliceReads(plan, seeded);
        var work = new Reads(plan, reads, () => ITableReads.For(plan.Client, clients, table, seeded));
        var priming = await PrimeAsync(table, plan, reads, work.Loops, time, work.NewDriver, logger).ConfigureAwait(false);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, TableReadRoom.Instance.Name, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, spec, clients.Tables.Uri),
            work, priming, () => clients.TableWire.Sent, time, ct, live).ConfigureAwait(false);
    }

    /// <summary>A loop's driver, the entities its prepared read must return, and what its reads met.</summary>
    private sealed class ReadLoop(ITableReads driver) : IDisposable
    {
        public ITableReads Driver { get; } = driver;
        public long Expected;
        public long Reads, Mismatches, Matched;

        public void Dispose() => Driver.Dispose();
    }

    private sealed class Reads(TableReadSlicePlan plan, SliceReads reads, Func<ITableReads> newDriver) : SliceWork<ReadLoop>
    {
        private readonly List<ReadLoop> _loops = [];

        public Func<ITableReads> NewDriver => newDriver;

        public override int Loops => plan.Workload.DurationSeconds > 0 ? plan.Workload.Concurrency : (int)Math.Min(plan.Workload.Concurrency, plan.ReadCount);

        public override long Count => plan.ReadCount;

        public override double OperationsPerSecond => plan.OperationsPerSecond;

        public override ReadLoop NewLoop(int index)
        {
            var state = new ReadLoop(newDriver());
            lock (_loops)
            {
                _loops.Add(state);
            }
            return state;
        }

        public override void Prepare(ReadLoop loop, long read) => loop.Expected = reads.Prepare(loop.Driver, read);

        public override async Task SendAsync(ReadLoop loop, Operation op)
        {
            loop.Reads++;
            long returned = 0, wrong = 0;
            bool first = true, more = true, failed = false;
            while (more && (first || !op.Window.Stopping.IsCancellationRequested))
            {
                var sent = await Lane.SendAsync(loop.Driver.SendAsync).ConfigureAwait(false);
                // A point read of a seeded entity answered 404: storage does not hold what was seeded.
                wrong += sent.Failure is RequestFailedException { Status: 404 } && !reads.IsQuery ? 1 : 0;
                op.Lane.Record(sent, sent.Answer.Entities, op.Index, first ? op.Due : sent.Start);
                failed |= !sent.Succeeded;
                returned += sent.Answer.Entities;
                wrong += sent.Answer.Wrong;
                more = sent.Succeeded && sent.Answer.More;
                first = false;
            }
            bool whole = !failed && !more;
            // A query that ended with fewer entities than its range holds missed some.
            wrong += whole ? Math.Max(0, loop.Expected - returned) : 0;
            loop.Mismatches += wrong;
            loop.Matched += whole && wrong == 0 && returned == loop.Expected ? 1 : 0;
        }

        public override SliceResult Finish(SliceResult result, IReadOnlyList<WorkerRecorder> recorders) => result with
        {
            Planned = plan.Workload.DurationSeconds > 0 ? _loops.Sum(t => t.Reads) : plan.ReadCount,
            Mismatches = _loops.Sum(t => t.Mismatches),
            MatchedReads = _loops.Sum(t => t.Matched),
        };
    }

    /// <summary>
    /// Untimed, before the start barrier: one probe (a point read of a key never seeded, answered 404), then
    /// <c>client.primeRounds</c> rounds on every in-flight loop (up to 16) of the workload's own read through the measured
    /// driver, a query for one entity (<see cref="Priming.Entities"/>) — reads leave nothing behind. Rounds stop when the start instant comes near. Counted for cost.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(TableClient table, TableReadSlicePlan plan, SliceReads reads, int loops, TimeProvider time,
        Func<ITableReads> newReads, ILogger? logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(table.GetEntityIfExistsAsync<TableEntity>(plan.Partitions.KeyOf(0), $"probe-{plan.SliceIndex:D3}", select: ["PartitionKey"])).ConfigureAwait(false);
        long[] sent = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            using var driver = newReads();
            long requests = 0;
            var lastRound = TimeSpan.Zero;
            for (int round = 0; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                // Reads far from the measured ones' indexes (which start at 0): the same kind of request, other entities.
                reads.Prepare(driver, long.MaxValue / 2 - loop * 1_000L - round, Priming.Entities);
                bool more = true;
                while (more)
                {
                    requests++;
                    var page = driver.SendAsync();
                    await tally.Quietly(page).ConfigureAwait(false);
                    more = page.IsCompletedSuccessfully && page.Result.More;
                }
                lastRound = time.GetElapsedTime(began);
            }
            return requests;
        })));
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingReads = sent.Sum() });
    }

    /// <summary>Which entities a slice's read r asks for: deterministic, spread over the slice's partitions and their entities.</summary>
    private sealed class SliceReads(TableReadSlicePlan plan, SeededEntities seeded)
    {
        private readonly (string Key, long First, long Count)[] _partitions =
            [.. TableReadRoom.PartitionsOf(plan.Partitions).Select(p => (Planner.PartitionKey(p), seeded.RangeOf(p).First, seeded.RangeOf(p).Count))];

        public bool IsQuery { get; } = plan.Workload.Operation == TableReadSpec.Query;

        /// <summary>Prepares read r on the driver (a query for at most <paramref name="most"/> entities); returns the entities it must return.</summary>
        public long Prepare(ITableReads driver, long r, int most = int.MaxValue)
        {
            var (key, first, count) = _partitions[r % _partitions.Length];
            ulong mix = Mix((ulong)r ^ ((ulong)plan.SliceIndex << 48));
            if (!IsQuery)
            {
                driver.PreparePoint(key, first + (long)(mix % (ulong)count));
                return 1;
            }
            int q = Math.Min(plan.Workload.QueryEntities, most);
            long lo = first + (long)(mix % (ulong)(count - q + 1));
            driver.PrepareQuery(key, lo, lo + q, Math.Min(q, TableReadRoom.MaxPageEntities));
            return q;
        }

        /// <summary>SplitMix64's finalizer: consecutive reads land on scattered entities.</summary>
        private static ulong Mix(ulong x)
        {
            x += 0x9E3779B97F4A7C15UL;
            x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
            x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
            return x ^ (x >> 31);
        }
    }
}

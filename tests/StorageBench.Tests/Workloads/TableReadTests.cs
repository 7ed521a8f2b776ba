using Azure.Data.Tables;
using CsCheck;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.TableRead;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>tableRead against a real Azurite, through its room's own steps: seed, read on both drivers, verify, summarize.</summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class TableReadTests(AzuriteFixture azurite)
{
    private static readonly TableReadRoom Room = new();

    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task PointReadsReturnWhatWasSeededAndSeedingTwiceChangesNothing(string driver)
    {
        var step = await StepAsync(new TableReadSpec { EntityCount = 300, EntitySizeBytes = 200, PartitionCount = 3, Slices = 2, ReadCount = 400, Concurrency = 3 }, driver);
        var seeds = await step.SeedAsync();
        Assert.Equal(300, seeds.Sum(s => s.Units));
        Assert.Equal(0, seeds.Sum(s => s.Failed));
        Assert.Equal(3, seeds.Sum(s => s.Requests));   // 100 entities a partition: one transaction each
        var seeding = Room.SeedingLine(seeds)!;
        Assert.Equal((3, 300L, "seeding"), (seeding.Requests, seeding.Entities, seeding.Phase));
        await step.SeedAsync();   // an activity runs at least once: the same entities again

        var results = await step.RunAsync();
        var (verified, summary) = await step.VerifyAsync(results);

        Assert.Equal(400, results.Sum(r => r.Counts.Succeeded));
        Assert.Equal(400, results.Sum(r => r.Units));
        Assert.Equal(0, results.Sum(r => r.Mismatches));
        Assert.Equal(400, results.Sum(r => r.MatchedReads));
        Assert.True(verified.Matched, verified.Detail);
        Assert.Equal(300, verified.Actual);
        Assert.Equal(400, summary.Entities);
        Assert.Equal((400, 400, 0.0), (summary.Planned, summary.Stored, summary.UnstoredShare));
        Assert.Null(summary.EntitiesPerQueryPage);
        Assert.Equal(400, summary.Transactions.Single(l => l.Kind == "point reads").Requests);
    }

    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task QueriesFollowContinuationsAndReportEntitiesPerPage(string driver)
    {
        // 1,200 entities a query: a page of 1,000, then one of 200 after the continuation.
        var step = await StepAsync(new TableReadSpec { EntityCount = 1_500, EntitySizeBytes = 16, Operation = TableReadSpec.Query, QueryEntities = 1_200, ReadCount = 3, Concurrency = 2 }, driver);
        await step.SeedAsync();

        var results = await step.RunAsync();
        var (verified, summary) = await step.VerifyAsync(results);

        Assert.Equal(6, results.Sum(r => r.Counts.Succeeded));
        Assert.Equal(3 * 1_200, results.Sum(r => r.Units));
        Assert.Equal(3, results.Sum(r => r.MatchedReads));
        Assert.True(verified.Matched, verified.Detail);
        Assert.Equal(600, summary.EntitiesPerQueryPage);
        Assert.Equal(6, summary.Transactions.Single(l => l.Kind == "query pages").Requests);
    }

    /// <summary>An open loop with a duration, as tableInsert's: reads go out on their slots, latency beside service time and lag, and no slot past the end is sent.</summary>
    [Fact]
    public async Task ATimedOpenLoopSendsNoMoreThanItsSlotsAndReportsServiceTimeAndLag()
    {
        var step = await StepAsync(new TableReadSpec { EntityCount = 100, EntitySizeBytes = 64, DurationSeconds = 1.5, TargetOperationsPerSecond = 40, Concurrency = 2 },
            ClientSettings.LeanDriver);
        await step.SeedAsync();

        var result = (await step.RunAsync()).Single();

        Assert.InRange(result.Planned, 1, 60);   // slots due in 1.5 s at 40/s: 0 … 59
        Assert.Equal(result.Planned, result.Counts.Operations + result.WarmupOperations);
        Assert.Equal(result.Counts.Succeeded, result.MatchedReads);
        Assert.NotNull(result.ServiceTimeHistogram);
        Assert.NotNull(result.LagHistogram);
    }

    /// <summary>Verification must fail when storage returns other than what was seeded: an entity changed after seeding, or one missing.</summary>
    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task VerificationFailsWhenAReadReturnsAnEntityOtherThanSeeded(string driver)
    {
        // Every query reads the whole partition, so every one meets the changed entity.
        var spec = new TableReadSpec { EntityCount = 50, EntitySizeBytes = 100, Operation = TableReadSpec.Query, QueryEntities = 50, ReadCount = 4, Concurrency = 2 };
        var step = await StepAsync(spec, driver);
        await step.SeedAsync();
        var changed = new SeededEntities(spec).NewEntity(17, 0);
        changed["D00"] = new byte[100];
        await step.Table.UpsertEntityAsync(changed, TableUpdateMode.Replace);

        var results = await step.RunAsync();
        var (verified, summary) = await step.VerifyAsync(results);

        Assert.Equal(4, results.Sum(r => r.Mismatches));
        Assert.Equal(0, results.Sum(r => r.MatchedReads));
        Assert.False(verified.Matched, verified.Detail);
        Assert.Equal(50, verified.Actual);   // the count is right: only the reads show the change
        Assert.Equal(4, summary.Mismatches);
        Assert.Equal(1.0, summary.UnstoredShare);
    }

    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task VerificationFailsWhenASeededEntityIsMissing(string driver)
    {
        var spec = new TableReadSpec { EntityCount = 20, EntitySizeBytes = 64, ReadCount = 200, Concurrency = 2 };
        var step = await StepAsync(spec, driver);
        await step.SeedAsync();
        await step.Table.DeleteEntityAsync(Planner.PartitionKey(0), SeededEntities.RowKey(5));

        var results = await step.RunAsync();
        var (verified, _) = await step.VerifyAsync(results);

        long missing = results.Sum(r => r.Counts.ClientErrors);
        Assert.InRange(missing, 1, 199);   // reads of entity 5 were answered 404
        Assert.Equal(missing, results.Sum(r => r.Mismatches));
        Assert.Equal(200 - missing, results.Sum(r => r.MatchedReads));
        Assert.False(verified.Matched, verified.Detail);
        Assert.Equal(19, verified.Actual);
    }

    /// <summary>
    /// Seed 004's lesson: an Int64 compared in a $filter needs the OData L literal. Azurite 3.37 enforces the type on equality
    /// (a stored Int64 never equals an untyped number) but not on ge/lt/gt/le, where JavaScript compares the stored digits with
    /// the number: a range without the L matches there, and only the real service refuses it. So the room's range is checked
    /// here for what it returns, equality shows the type is enforced, and the L itself is pinned on the wire (LeanWireTests).
    /// </summary>
    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task TheInt64FilterNeedsTheLLiteralAndTheRoomsQueryHasIt(string driver)
    {
        var step = await StepAsync(new TableReadSpec { EntityCount = 40, EntitySizeBytes = 32, Operation = TableReadSpec.Query, QueryEntities = 40, ReadCount = 2, Concurrency = 1 }, driver);
        await step.SeedAsync();
        long seventh = SeededEntities.Sequence(7);

        Assert.Equal(0, await CountAsync(step.Table.QueryAsync<TableEntity>($"PartitionKey eq 'p00000' and Sequence eq {seventh}")));
        Assert.Equal(1, await CountAsync(step.Table.QueryAsync<TableEntity>(TableClient.CreateQueryFilter($"PartitionKey eq {"p00000"} and Sequence eq {seventh}"))));
        Assert.Equal(40, await CountAsync(step.Table.QueryAsync<TableEntity>(ITableReads.QueryFilter("p00000", 0, 40))));
        Assert.Equal(10, await CountAsync(step.Table.QueryAsync<TableEntity>(ITableReads.QueryFilter("p00000", 5, 15))));
        var results = await step.RunAsync();
        Assert.Equal(2, results.Sum(r => r.MatchedReads));
        Assert.Equal(80, results.Sum(r => r.Units));
    }

    private static async Task<int> CountAsync(Azure.AsyncPageable<TableEntity> entities)
    {
        int count = 0;
        await foreach (var _ in entities)
        {
            count++;
        }
        return count;
    }

    private async Task<ReadStep> StepAsync(TableReadSpec spec, string driver)
    {
        var names = TestStep.New();
        await azurite.Tables.CreateTableAsync(names.TableName);
        var run = new RunSpec { Scenario = "tableread-test", TableRead = spec, Client = new ClientSettings { Driver = driver, PrimeRounds = 2 } };
        return new ReadStep(azurite, run, new StepPlan(names.RunId, names.StepId, names.TableName, DateTime.UtcNow.AddSeconds(0.5)));
    }

    /// <summary>One step of the room, its orders made once (as the orchestrator does), each call as its activity would make it.</summary>
    private sealed class ReadStep(AzuriteFixture azurite, RunSpec run, StepPlan plan)
    {
        private IReadOnlyList<SliceOrder> Orders { get; } = Room.Plan(plan, run);

        public TableClient Table => azurite.Tables.GetTableClient(plan.TargetName);

        public Task<SeedResult[]> SeedAsync() => Task.WhenAll(Orders.Select(o => Room.SeedAsync(o, azurite.Target, default)));

        /// <summary>The slices, started now (seeding took the planned start instant's time).</summary>
        public Task<SliceResult[]> RunAsync() =>
            Task.WhenAll(Orders.Select(o => Room.RunSliceAsync(o, azurite.Target, TimeProvider.System, default, null, null)));

        public async Task<(VerificationResult, WorkloadSummary)> VerifyAsync(IReadOnlyList<SliceResult> results)
        {
            var verified = await Room.VerifyAsync(Room.VerifyOrderOf(run, plan, results), [azurite.Target], default);
            return (verified, Room.Summarize(run, results, verified));
        }
    }
}

/// <summary>tableRead's spec rules: each broken one names its field, and whatever they accept can run.</summary>
[Trait("Category", "Unit")]
public class TableReadSpecTests
{
    private static readonly TableReadRoom Room = new();

    /// <summary>Any spec the rules accept makes a plan every slice can run: partitions of its own, each holding a whole query, and reads beyond warm-up.</summary>
    [Fact]
    public void AnAcceptedSpecAlwaysPlansReadsThatCanBeMade()
    {
        var specs = Gen.Select(Gen.Long[1, 5_000], Gen.Int[1, 40], Gen.Int[0, 300], Gen.Long[0, 300], Gen.Int[0, 12], Gen.Long[0, 30], Gen.Bool)
            .Select((entities, partitions, query, reads, slices, warmup, isQuery) => new TableReadSpec
            {
                EntityCount = entities, PartitionCount = partitions, QueryEntities = query, ReadCount = reads, Slices = slices, WarmupOperations = warmup,
                Operation = isQuery ? TableReadSpec.Query : TableReadSpec.Point,
            });
        specs.Sample(spec =>
        {
            var checks = new SpecChecks(WrittenNumbers.None);
            Room.Validate(spec, checks);
            foreach (var e in checks)
            {
                Assert.StartsWith("tableRead.", e.Field);
                Assert.False(string.IsNullOrEmpty(e.Value) || string.IsNullOrEmpty(e.Rule), e.ToString());
            }
            if (checks.Count > 0)
            {
                return;
            }
            var seeded = new SeededEntities(spec);
            var plans = Room.Plan(new StepPlan("run", "run-s000", "t", DateTime.UnixEpoch), new RunSpec { Scenario = "p", TableRead = spec }).Select(Room.Unpack).ToList();
            Assert.Equal(spec.ReadCount, plans.Sum(p => p.ReadCount));
            Assert.Equal(spec.EntityCount, Enumerable.Range(0, spec.PartitionCount).Sum(p => seeded.RangeOf(p).Count));
            foreach (var plan in plans)
            {
                Assert.True(plan.Partitions.Count >= 1);
                Assert.True(plan.ReadCount > spec.WarmupOperations);
                Assert.All(plan.Partitions.Keys(), k => Assert.True(seeded.RangeOf(SdkTableReads.PartitionIndex(k)).Count >= (spec.Operation == TableReadSpec.Query ? spec.QueryEntities : 1)));
            }
            // Every partition is some slice's.
            Assert.Equal(spec.PartitionCount, plans.SelectMany(p => p.Partitions.Keys()).Distinct().Count());
        }, iter: 2_000);
    }
}

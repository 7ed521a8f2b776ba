using StorageBench.Engine.Capacity;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;

namespace StorageBench.Tests;

/// <summary>The capacity model, on measured steps written out here: what it derives, where it spreads, when it refuses.</summary>
[Trait("Category", "Unit")]
public class CapacityPlannerTests
{
    private static readonly ScalabilityTargets Targets = ScalabilityTargets.BuiltIn;
    private static readonly PriceTable Prices = PriceTableReader.BuiltIn;

    /// <summary>A tableInsert step of a concurrency search: its spec, target and figures.</summary>
    private static MeasuredStep Step(string kind, double rate, int concurrency = 8, int slices = 1, int partitions = 1, double p99 = 40, double? cpu = 50,
        long failed = 0, int entitySize = 1024, bool beyondKnee = false) =>
        new("run-1", "test", "tableInsert", "tableInsert.concurrency", concurrency,
            new RunSpec
            {
                Scenario = "measured",
                TableInsert = new TableInsertSpec { EntitySizeBytes = entitySize, BatchSize = 100, Concurrency = concurrency, Slices = slices, PartitionCount = partitions, DurationSeconds = 5, WarmupSeconds = 1 },
            },
            kind, 1, 2, rate, p99 / 4, p99, 1_000, failed, cpu, beyondKnee);

    private static CapacityPlan Planned(PlanOutcome outcome) => outcome.Plan ?? throw new Xunit.Sdk.XunitException("refused: " + outcome.Refusal);

    [Fact]
    public void OnAzuriteAPlanBelowTheMeasuredCeilingScalesTheBestSliceAndWritesAnOpenLoopSpecThatValidates()
    {
        var steps = new[] { Step("Azurite", 3_000, concurrency: 1), Step("Azurite", 9_000, concurrency: 8), Step("Azurite", 10_000, concurrency: 16, failed: 50) };
        var plan = Planned(CapacityPlanner.Plan(steps, new PlanRequest(7_200, CapacityPlanner.EntitiesPerSecond), Targets, Prices));

        // 16 in flight failed 5% of its requests: not sustained, so 8 in flight (9,000/s) is the operating point.
        Assert.Equal(8, plan.OperatingPoint.Spec.TableInsert!.Concurrency);
        Assert.Equal((1, 1, 1), (plan.Slices, plan.Partitions, plan.Accounts));
        Assert.Equal(72, plan.Spec.TableInsert!.TargetOperationsPerSecond);   // 7,200 entities/s in batches of 100
        Assert.Equal(5, plan.Spec.TableInsert.DurationSeconds);                // as long as the step it scales ran
        Assert.True(plan.InFlightPerSlice >= 8);
        Assert.Empty(RunSpecValidator.Validate(plan.Spec));
        Assert.StartsWith("measured: run run-1, tableInsert.concurrency = 8", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Equal(9_000, plan.Bottleneck.Capacity);
        Assert.Equal(72 * 3600, plan.Cost.RequestsPerHour, 6);   // 72 batches/s, each one transaction
        Assert.NotNull(plan.Cost.ComputePerHour);
        string text = CapacityPlanText.Render(plan, Targets);
        Assert.Contains("bottleneck", text);
        Assert.Contains("measured: run run-1", text);
        Assert.Contains("assumed:", text);
    }

    [Fact]
    public void OnAzureARateBeyondOneAccountSpreadsOverSeveralAndSaysSo()
    {
        var steps = new[] { Step("AzureStorage", 1_800, concurrency: 8), Step("AzureStorage", 2_000, concurrency: 16, partitions: 4) };
        var one = Planned(CapacityPlanner.Plan(steps, new PlanRequest(15_000, CapacityPlanner.EntitiesPerSecond), Targets, Prices));
        Assert.Equal(1, one.Accounts);
        Assert.DoesNotContain(one.Notes, n => n.Contains("spreads over", StringComparison.Ordinal));

        var plan = Planned(CapacityPlanner.Plan(steps, new PlanRequest(50_000, CapacityPlanner.EntitiesPerSecond), Targets, Prices));
        Assert.Equal(3, plan.Accounts);                          // 20,000 requests/s per account, each entity counted
        Assert.Equal(0, plan.Slices % plan.Accounts);            // slice i writes to account i mod n: spread evenly
        Assert.Equal(25, plan.Partitions);                       // 2,000 entities/s per partition, documented
        Assert.Contains(plan.Notes, n => n.StartsWith("spreads over 3 storage accounts", StringComparison.Ordinal));
        Assert.StartsWith("documented: pricing/scalability-targets.json", plan.Limits.Single(l => l.Name == "accounts").Basis);
        Assert.Contains("target accounts         3 (spread", CapacityPlanText.Render(plan, Targets));
    }

    [Fact]
    public void OnAzuriteARateBeyondTheHighestMeasuredIsRefusedWithTheReason()
    {
        var steps = new[] { Step("Azurite", 9_000, concurrency: 8), Step("Azurite", 6_000, concurrency: 4, partitions: 4) };
        var outcome = CapacityPlanner.Plan(steps, new PlanRequest(20_000, CapacityPlanner.EntitiesPerSecond), Targets, Prices);
        Assert.Null(outcome.Plan);
        Assert.StartsWith("20,000 entities/s is beyond the highest rate measured against Azurite, 9,000 entities/s (run run-1, tableInsert.concurrency = 8)", outcome.Refusal);
    }

    [Theory]
    [InlineData(10.0, null, "no measured operating point had p99 within 10 ms: the lowest was 40 ms")]
    [InlineData(null, 4096, "no sustained step wrote entities of 4,096 bytes (measured: 1,024 bytes)")]
    public void ALatencyBoundOrEntitySizeTheMeasurementsDoNotCoverIsRefused(double? p99, int? entitySize, string reason)
    {
        var outcome = CapacityPlanner.Plan([Step("Azurite", 9_000)], new PlanRequest(1_000, CapacityPlanner.EntitiesPerSecond, p99, entitySize), Targets, Prices);
        Assert.Null(outcome.Plan);
        Assert.StartsWith(reason, outcome.Refusal);
    }

    [Fact]
    public void NoSustainedStepOrTheWrongWorkloadIsRefusedNotGuessed()
    {
        Assert.StartsWith("none of the 2 tableInsert step(s) sustained its rate",
            CapacityPlanner.Plan([Step("Azurite", 9_000, failed: 500), Step("Azurite", 9_500, beyondKnee: true)], new PlanRequest(1_000, CapacityPlanner.EntitiesPerSecond), Targets, Prices).Refusal);
        Assert.StartsWith("no blobUpload step among the 1 step(s) read",
            CapacityPlanner.Plan([Step("Azurite", 9_000)], new PlanRequest(10, CapacityPlanner.MegabytesPerSecond), Targets, Prices).Refusal);
    }

    [Fact]
    public void ARateThatNeedsMoreSlicesThanARunFansOutIsRefused()
    {
        // 100 entities/s per slice measured: 30,000 entities/s would need 300 slices, past the 256 a run fans out.
        var outcome = CapacityPlanner.Plan([Step("AzureStorage", 100, concurrency: 1)], new PlanRequest(30_000, CapacityPlanner.EntitiesPerSecond), Targets, Prices);
        Assert.StartsWith("the target needs 300 slices, more than the 256 slices one run fans out", outcome.Refusal);
    }

    [Fact]
    public void FunctionAppInstancesFollowTheMeasuredDriverCpuAndTheInstanceSize()
    {
        // 250 µs per entity: one core drives 4,000 entities/s, 2,800 at 70% busy; 14,000 entities/s need 5 cores.
        var steps = new[] { Step("AzureStorage", 2_000, cpu: 250) };
        var small = Planned(CapacityPlanner.Plan(steps, new PlanRequest(14_000, CapacityPlanner.EntitiesPerSecond, InstanceMemoryMb: 2048), Targets, Prices));
        var large = Planned(CapacityPlanner.Plan(steps, new PlanRequest(14_000, CapacityPlanner.EntitiesPerSecond, InstanceMemoryMb: 4096), Targets, Prices));
        Assert.Equal(5, small.DriverCores!.Value, 3);
        Assert.Equal((5, 3), (small.Instances, large.Instances));
        Assert.True(large.Cost.ComputePerHour > small.Cost.ComputePerHour);   // 3 × 4 GB costs more than 5 × 2 GB
    }

    [Fact]
    public void APriceTableWithoutTheFlexConsumptionLineStillLoadsAndThePlanSaysComputeIsNotPriced()
    {
        string json = File.ReadAllText(Path.Combine(Repo.Root(), "pricing", "azure-storage-prices.json"));
        // The file without the line (and its comma): an older price table.
        string old = System.Text.RegularExpressions.Regex.Replace(json, "\"functionsFlexConsumptionOnDemandPerGbSecond\": [0-9.]+,", "");
        Assert.DoesNotContain("\"functionsFlexConsumptionOnDemandPerGbSecond\":", old);
        var (table, errors) = PriceTableReader.Parse(old, "old.json");
        Assert.Empty(errors);
        Assert.Null(table!.FunctionsFlexConsumptionOnDemandPerGbSecond);
        var plan = Planned(CapacityPlanner.Plan([Step("Azurite", 9_000)], new PlanRequest(1_000, CapacityPlanner.EntitiesPerSecond), Targets, table));
        Assert.Null(plan.Cost.ComputePerHour);
        Assert.Contains("compute not priced", CapacityPlanText.Render(plan, Targets));
    }

    private static MeasuredStep BlobStep(string kind, double megabytesPerSecond) =>
        new("run-b", "test", "blobUpload", "blobUpload.slices", 1,
            new RunSpec { Scenario = "blobs", BlobUpload = new BlobUploadSpec { BlobSizeBytes = 8_388_608, BlockSizeBytes = 4_194_304, ParallelBlocks = 4, Slices = 1, DurationSeconds = 10 } },
            kind, 1, 2, megabytesPerSecond, 50, 200, 500, 0, 100, false);

    [Fact]
    public void ABlobPlanKeepsEachBlobToItsDocumentedRequestRateAndEachAccountToItsIngress()
    {
        // One slice measured 2,500 MB/s; one blob is documented at 500 requests/s × 4.19 MB blocks = 2,097 MB/s, which binds.
        var plan = Planned(CapacityPlanner.Plan([BlobStep("AzureStorage", 2_500)], new PlanRequest(5_000, CapacityPlanner.MegabytesPerSecond), Targets, Prices));
        Assert.Equal((2, 4, 0), (plan.Accounts, plan.Slices, plan.Partitions));   // 25 Gbps = 3,125 MB/s per account
        Assert.StartsWith("documented: ", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Contains("25 Gbps ingress", plan.Limits.Single(l => l.Name == "accounts").Basis);
        Assert.Contains(plan.Notes, n => n.StartsWith("blob uploads have no open-loop rate", StringComparison.Ordinal));
        Assert.Equal(4, plan.Spec.BlobUpload!.Slices);
        Assert.Null(plan.Spec.TableInsert);

        Assert.StartsWith("300.0 MB/s is beyond the highest rate measured against Azurite, 250.0 MB/s",
            CapacityPlanner.Plan([BlobStep("Azurite", 250)], new PlanRequest(300, CapacityPlanner.MegabytesPerSecond), Targets, Prices).Refusal);
    }

    [Theory]
    [InlineData("\"readOn\":", "\"raedOn\": \"x\", \"readOn\":", "raedOn: (unknown field) is not a field of the scalability targets")]
    [InlineData("\"accountRequestsPerSecond\": 20000", "\"accountRequestsPerSecond\": -1", "accountRequestsPerSecond: -1 must be a number above 0")]
    [InlineData("\"blobRequestsPerSecond\": 500,", "", "blobRequestsPerSecond: (missing) is required")]
    public void TheTargetsFileIsCheckedFieldByField(string find, string replace, string error)
    {
        string json = File.ReadAllText(Path.Combine(Repo.Root(), "pricing", "scalability-targets.json"));
        Assert.Contains(find, json);
        var (targets, errors) = ScalabilityTargets.Parse(json.Replace(find, replace, StringComparison.Ordinal), "t.json");
        Assert.Null(targets);
        Assert.StartsWith(error, Assert.Single(errors).ToString());
        Assert.Equal(2000, ScalabilityTargets.BuiltIn.TableEntitiesPerSecondPerPartition);
        Assert.Equal(0.000026, PriceTableReader.BuiltIn.FunctionsFlexConsumptionOnDemandPerGbSecond);
    }
}

/// <summary>The plan command's arguments: a bad one is exit 2 naming the option, the value and the rule; nothing is read or written.</summary>
[Trait("Category", "Unit")]
public class PlanCommandArgumentTests
{
    [Theory]
    [InlineData(new[] { "plan" }, "error: --target: (missing) is required")]
    [InlineData(new[] { "plan", "--target", "0" }, "error: --target: \"0\" must be a rate above 0")]
    [InlineData(new[] { "plan", "--target", "10", "--unit", "rows/s" }, "error: --unit: \"rows/s\" must be entities/s (tableInsert) or MB/s (blobUpload)")]
    [InlineData(new[] { "plan", "--target", "10", "--instance-memory-mb", "1024" }, "error: --instance-memory-mb: \"1024\" must be 512, 2048 or 4096")]
    [InlineData(new[] { "plan", "--target", "10", "--unit", "MB/s", "--entity-size", "1024" }, "error: --entity-size: \"1024\" applies to --unit entities/s only")]
    [InlineData(new[] { "plan", "--target", "10", "--from", "no/such/dir" }, "error: --from: \"no/such/dir\" is neither a summary.json or directory that exists nor a run id")]
    public async Task ABadArgumentIsExitTwoNamingIt(string[] args, string error)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        Assert.Equal(2, await StorageBench.Cli.CliApp.RunAsync(args, stdout, stderr, default));
        Assert.StartsWith(error, stderr.ToString());
    }
}

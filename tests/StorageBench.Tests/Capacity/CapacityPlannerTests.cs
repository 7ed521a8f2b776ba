using System.Globalization;
using CsCheck;
using StorageBench.Engine.Capacity;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.BlobDownload;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.PageBlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads.TableRead;

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
    public void APlanWithADurationPricesTheWholeRun() =>
        Gen.Select(Gen.Int[1_000, 19_000], Gen.Int[60, 86_400]).Sample((target, seconds) =>
        {
            var plan = Planned(CapacityPlanner.Plan([Step("AzureStorage", 2_000, cpu: 50)],
                new PlanRequest(target, CapacityPlanner.EntitiesPerSecond, DurationSeconds: seconds), Targets, Prices));
            double hours = seconds / 3600.0;
            string line = CapacityPlanText.Render(plan, Targets).Split('\n').Single(l => l.TrimStart().StartsWith("cost of the run", StringComparison.Ordinal));
            Assert.Contains(string.Create(CultureInfo.InvariantCulture, $"USD {plan.Cost.TotalPerHour * hours:0.####} for --duration {seconds:N0} s"), line);
            Assert.Contains(string.Create(CultureInfo.InvariantCulture, $"compute USD {plan.Cost.ComputePerHour!.Value * hours:0.####}"), line);
            Assert.Contains("no egress", line);
        }, iter: 50);

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
        // The written spec places the slices so no worker runs more than its instance's share of them.
        foreach (var plan in new[] { small, large })
        {
            Assert.Equal((plan.Slices + plan.Instances - 1) / plan.Instances, plan.Spec.Placement!.SlicesPerWorker);
        }
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

    private static MeasuredStep ReadStep(string kind, double rate, string operation = TableReadSpec.Point, int slices = 1, int partitions = 1, double? entitiesPerPage = null,
        int entitySize = 1024) =>
        new("run-r", "test", "tableRead", "tableRead.concurrency", 8,
            new RunSpec
            {
                Scenario = "reads",
                TableInsert = new TableInsertSpec { DurationSeconds = 5 },
                TableRead = new TableReadSpec { EntityCount = 1_000, EntitySizeBytes = entitySize, PartitionCount = partitions, Operation = operation, QueryEntities = 100, Concurrency = 8, Slices = slices, DurationSeconds = 5, WarmupSeconds = 1 },
                BlobDownload = new BlobDownloadSpec { DurationSeconds = 5 },
            },
            kind, 1, 2, rate, 10, 40, 10_000, 0, 5, false, entitiesPerPage);

    [Fact]
    public void ATableReadPlanOnAzureKeepsPartitionsToTheDocumentedTargetAndCountsAPointReadAsOneRequest()
    {
        var plan = Planned(CapacityPlanner.Plan([ReadStep("AzureStorage", 4_000)], new PlanRequest(35_000, CapacityPlanner.EntitiesPerSecond, Workload: "tableRead"), Targets, Prices));
        Assert.Equal("tableRead", plan.Workload);
        // 4,000 entities/s per slice measured: 9 slices, 10 to spread evenly over 2 accounts of 20,000 requests/s (one per point read).
        Assert.Equal((10, 18, 2), (plan.Slices, plan.Partitions, plan.Accounts));
        Assert.Equal("partitions", plan.Bottleneck.Name);   // 18 × 2,000 documented = 36,000
        Assert.StartsWith("documented: pricing/scalability-targets.json", plan.Bottleneck.Basis);
        Assert.StartsWith("measured: run run-r, tableRead.concurrency = 8", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Contains("20,000 requests/s, one request per entity", plan.Limits.Single(l => l.Name == "accounts").Basis);
        Assert.Equal(35_000, plan.Spec.TableRead!.TargetOperationsPerSecond);
        Assert.Equal(18_000, plan.Spec.TableRead.EntityCount);   // 1,000 a partition, as measured
        Assert.Equal(35_000 * 3600, plan.Cost.RequestsPerHour, 6);
        Assert.Null(plan.Spec.TableInsert);
        Assert.Null(plan.Spec.BlobDownload);
        Assert.Contains("tableRead", CapacityPlanText.Render(plan, Targets));
    }

    [Theory]
    [InlineData(null, 100.0, "100.0 entities per query page, assumed")]
    [InlineData(50.0, 50.0, "50.0 entities per query page, measured at run run-r")]
    public void AQueryPlanCountsAnAccountsRequestsInQueryPagesMeasuredOrSaysTheyAreAssumed(double? measuredPerPage, double perPage, string basis)
    {
        var plan = Planned(CapacityPlanner.Plan([ReadStep("AzureStorage", 20_000, TableReadSpec.Query, entitiesPerPage: measuredPerPage)],
            new PlanRequest(10_000, CapacityPlanner.EntitiesPerSecond, Workload: "tableRead"), Targets, Prices));
        Assert.Contains(basis, plan.Limits.Single(l => l.Name == "accounts").Basis);
        Assert.Equal(20_000 * perPage, plan.Limits.Single(l => l.Name == "accounts").PerUnit);
        Assert.Equal(100, plan.Spec.TableRead!.TargetOperationsPerSecond);   // queries of 100 entities
        Assert.Equal(10_000 / perPage * 3600, plan.Cost.RequestsPerHour, 6);
    }

    [Fact]
    public void ATableReadPlanBeyondWhatAzuriteWasMeasuredToReadOrOfAnUnmeasuredSizeIsRefused()
    {
        Assert.StartsWith("5,000 entities/s is beyond the highest rate measured against Azurite, 3,000 entities/s (run run-r, tableRead.concurrency = 8)",
            CapacityPlanner.Plan([ReadStep("Azurite", 3_000)], new PlanRequest(5_000, CapacityPlanner.EntitiesPerSecond, Workload: "tableRead"), Targets, Prices).Refusal);
        Assert.StartsWith("no sustained step read entities of 4,096 bytes (measured: 1,024 bytes)",
            CapacityPlanner.Plan([ReadStep("Azurite", 3_000)], new PlanRequest(1_000, CapacityPlanner.EntitiesPerSecond, EntitySizeBytes: 4096, Workload: "tableRead"), Targets, Prices).Refusal);
        // On Azurite every figure is measured.
        var plan = Planned(CapacityPlanner.Plan([ReadStep("Azurite", 3_000)], new PlanRequest(2_000, CapacityPlanner.EntitiesPerSecond, Workload: "tableRead"), Targets, Prices));
        Assert.All(plan.Limits, l => Assert.StartsWith("measured: ", l.Basis));
    }

    private static MeasuredStep DownloadStep(string kind, double megabytesPerSecond, long rangeSizeBytes) =>
        new("run-d", "test", "blobDownload", "blobDownload.parallelRanges", 4,
            new RunSpec
            {
                Scenario = "downloads",
                BlobUpload = new BlobUploadSpec { DurationSeconds = 5 },
                BlobDownload = new BlobDownloadSpec { BlobCount = 4, BlobSizeBytes = 8_388_608, RangeSizeBytes = rangeSizeBytes, ParallelRanges = 4, Slices = 1, DurationSeconds = 10 },
            },
            kind, 1, 2, megabytesPerSecond, 50, 200, 500, 0, 100, false);

    [Fact]
    public void ADownloadPlanKeepsEachBlobToItsRequestTargetAtItsRangeSizeAndEachAccountToItsEgress()
    {
        // 1 MB ranges: one blob takes 500 requests/s × 1 MB = 500 MB/s, below the 800 one slice measured; an account serves 50 Gbps = 6,250 MB/s.
        var plan = Planned(CapacityPlanner.Plan([DownloadStep("AzureStorage", 800, 1_000_000)], new PlanRequest(10_000, CapacityPlanner.MegabytesPerSecond, Workload: "blobDownload"), Targets, Prices));
        Assert.Equal((20, 2, 0), (plan.Slices, plan.Accounts, plan.Partitions));
        Assert.StartsWith("documented: ", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Contains("measured more: run run-d", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Contains("50 Gbps egress", plan.Limits.Single(l => l.Name == "accounts").Basis);
        Assert.Equal((20, 500.0), (plan.Spec.BlobDownload!.BlobCount, plan.Limits.Single(l => l.Name == "blobs").PerUnit));
        Assert.StartsWith("documented: ", plan.Bottleneck.Basis);
        Assert.Equal(10_000 * 3600, plan.Cost.RequestsPerHour, 6);   // one Get Blob per 1 MB range
        Assert.Equal(36_000 * Prices.DataTransferOutPerGb, plan.Cost.EgressPerHour);
        Assert.Null(plan.Spec.BlobUpload);
        Assert.Contains("36,000.0 GB read out", CapacityPlanText.Render(plan, Targets));

        // Whole blobs: each of the 4 loops reads its own 8.4 MB blob (4 × 4,194 MB/s), so the measured 800 MB/s stands.
        var whole = Planned(CapacityPlanner.Plan([DownloadStep("AzureStorage", 800, 0)], new PlanRequest(1_000, CapacityPlanner.MegabytesPerSecond, Workload: "blobDownload"), Targets, Prices));
        Assert.StartsWith("measured: run run-d", whole.Limits.Single(l => l.Name == "slices").Basis);
        Assert.StartsWith("300.0 MB/s is beyond the highest rate measured against Azurite, 250.0 MB/s",
            CapacityPlanner.Plan([DownloadStep("Azurite", 250, 0)], new PlanRequest(300, CapacityPlanner.MegabytesPerSecond, Workload: "blobDownload"), Targets, Prices).Refusal);
    }

    private static MeasuredStep PageStep(string kind, double megabytesPerSecond) =>
        new("run-p", "test", "pageBlobUpload", "pageBlobUpload.slices", 1,
            new RunSpec { Scenario = "pages", PageBlobUpload = new PageBlobUploadSpec { BlobSizeBytes = 8_388_608, PageRangeBytes = 4_194_304, ParallelRanges = 4, Slices = 1, DurationSeconds = 10 } },
            kind, 1, 2, megabytesPerSecond, 50, 200, 500, 0, 100, false);

    [Fact]
    public void APageBlobPlanKeepsEachBlobToItsDocumentedRequestRateAtItsPageRangeAndEachAccountToItsIngress()
    {
        var plan = Planned(CapacityPlanner.Plan([PageStep("AzureStorage", 2_500)], new PlanRequest(5_000, CapacityPlanner.MegabytesPerSecond, Workload: "pageBlobUpload"), Targets, Prices));
        Assert.Equal((2, 4, 0), (plan.Accounts, plan.Slices, plan.Partitions));   // a blob: 500 × 4.19 MB = 2,097 MB/s; an account 3,125 MB/s
        Assert.StartsWith("documented: ", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Contains("MB page ranges; measured more: run run-p", plan.Limits.Single(l => l.Name == "slices").Basis);
        Assert.Contains("25 Gbps ingress", plan.Limits.Single(l => l.Name == "accounts").Basis);
        double blobsPerSecond = 5_000e6 / 8_388_608;
        Assert.Equal(blobsPerSecond * 3 * 3600, plan.Cost.RequestsPerHour, 3);   // two Put Pages and a create per blob
        Assert.Equal(4, plan.Spec.PageBlobUpload!.Slices);
        Assert.StartsWith("300.0 MB/s is beyond the highest rate measured against Azurite, 250.0 MB/s",
            CapacityPlanner.Plan([PageStep("Azurite", 250)], new PlanRequest(300, CapacityPlanner.MegabytesPerSecond, Workload: "pageBlobUpload"), Targets, Prices).Refusal);
    }

    [Fact]
    public void AWrittenSpecKeepsOnlyThePlannedWorkloadWhateverElseTheMeasuredRunRan()
    {
        var all = ReadStep("Azurite", 3_000).Spec with
        {
            BlobUpload = new BlobUploadSpec { DurationSeconds = 5 },
            PageBlobUpload = new PageBlobUploadSpec { DurationSeconds = 5 },
            AppendBlobUpload = new StorageBench.Engine.Workloads.AppendBlobUpload.AppendBlobUploadSpec { DurationSeconds = 5 },
        };
        foreach (var room in StorageBench.Engine.Workloads.WorkloadList.All)
        {
            var only = CapacityPlanner.Only(all, room.Name);
            Assert.Equal([room.Name], StorageBench.Engine.Workloads.WorkloadList.In(only).Select(p => p.Room.Name));
            Assert.Equal(room.SectionOf(all), room.SectionOf(only));
        }
        var step = Step("Azurite", 9_000) with { Spec = all with { TableInsert = Step("Azurite", 9_000).Spec.TableInsert } };
        var plan = Planned(CapacityPlanner.Plan([step], new PlanRequest(1_000, CapacityPlanner.EntitiesPerSecond), Targets, Prices));
        Assert.Equal(["tableInsert"], StorageBench.Engine.Workloads.WorkloadList.In(plan.Spec).Select(p => p.Room.Name));
    }

    [Fact]
    public void AUnitAloneChoosesTheFirstWorkloadThatPlansInItAndANameMustPlanInTheUnitGiven()
    {
        Assert.Equal("tableInsert", CapacityPlanner.Choose(null, null).Room!.Name);
        Assert.Equal("blobUpload", CapacityPlanner.Choose(null, CapacityPlanner.MegabytesPerSecond).Room!.Name);
        Assert.Equal("blobDownload", CapacityPlanner.Choose("blobDownload", null).Room!.Name);
        Assert.Equal("tableRead", CapacityPlanner.Choose("tableRead", CapacityPlanner.EntitiesPerSecond).Room!.Name);
        Assert.Equal("\"tableRead\" plans in entities/s, not in MB/s: give the unit it plans in, or no unit", CapacityPlanner.Choose("tableRead", "MB/s").Error);
        Assert.All(StorageBench.Engine.Workloads.WorkloadList.All, w => Assert.NotNull(w.Capacity));
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
    [InlineData(new[] { "plan", "--target", "10", "--unit", "rows/s" }, "error: --unit: \"rows/s\" must be entities/s (tableInsert, tableRead) or MB/s (blobUpload, pageBlobUpload, blobDownload, appendBlobUpload)")]
    [InlineData(new[] { "plan", "--target", "10", "--workload", "tableDelete" },
        "error: --workload: \"tableDelete\" must be a workload that plans: tableInsert (entities/s), blobUpload (MB/s), pageBlobUpload (MB/s), tableRead (entities/s), blobDownload (MB/s), appendBlobUpload (MB/s)\n")]
    [InlineData(new[] { "plan", "--target", "10", "--workload", "tableRead", "--unit", "MB/s" }, "error: --workload: \"tableRead\" plans in entities/s, not in MB/s")]
    [InlineData(new[] { "plan", "--target", "10", "--workload", "blobDownload", "--entity-size", "1024" }, "error: --entity-size: \"1024\" applies to --unit entities/s only")]
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

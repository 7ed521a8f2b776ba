using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>Synthetic summaries for tests that need results without running a benchmark.</summary>
internal static class TestData
{
    public static WorkloadSummary TableWorkload(long ops = 100, long throttled = 0, double p99 = 50, double rate = 1000, long entities = 10_000) => new()
    {
        Workload = "tableInsert", Measures = "synthetic", Slices = 1, Operations = ops, Succeeded = ops - throttled, Failed = throttled,
        Throttled = throttled, TimedOut = 0, ServerErrors = 0, ClientErrors = 0, NetworkErrors = 0, Entities = entities, DurationSeconds = 10,
        Throughput = new Throughput(ops / 10.0, rate, rate, null, null), PeakPerSecond = rate, PeakUnit = "entities/s",
        LatencyMs = new LatencySummary(ops, 1, p99 / 4, p99 / 3, p99 / 2, p99 / 2, p99 / 1.5, p99 / 1.2, p99, p99, p99),
        Verified = new VerificationResult(true, entities, entities, "entities", "synthetic"), LatencyHistogram = "",
    };

    public static RunSummary Run(string scenario, DateTime startedUtc, params WorkloadSummary[] workloads) => new()
    {
        RunId = $"{startedUtc:yyyyMMdd-HHmmss}-{Guid.NewGuid().ToString("N")[..8]}",
        Status = RunStatus.Completed,
        StartedUtc = startedUtc,
        EndedUtc = startedUtc.AddSeconds(10),
        Spec = new RunSpec { Scenario = scenario, TableInsert = new TableInsertSpec() },
        Environment = new RunEnvironment("Azurite", 1, "test", "m", "r", 2),
        Workloads = workloads,
    };
}

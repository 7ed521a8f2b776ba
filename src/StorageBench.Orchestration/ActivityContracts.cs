using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Orchestration;

/// <summary>Activity names shared by the orchestrator, the in-process host and the Function App.</summary>
public static class ActivityNames
{
    public const string DescribeEnvironment = "DescribeEnvironment";
    public const string PrepareTargets = "PrepareTargets";
    public const string RunTableSlice = "RunTableSlice";
    public const string RunBlobSlice = "RunBlobSlice";
    public const string VerifyTable = "VerifyTable";
    public const string VerifyBlobs = "VerifyBlobs";
    public const string StoreResult = "StoreResult";
    public const string CheckRegression = "CheckRegression";
    public const string EmitTelemetry = "EmitTelemetry";
    public const string DeleteTargets = "DeleteTargets";
}

/// <summary>The orchestrator's input. Host names what started it (local-cli, http, timer).</summary>
/// <param name="CheckRegression">Compare the result with the scenario's trailing baseline (the nightly run does).</param>
public sealed record RunRequest(RunSpec Spec, string Host, bool CheckRegression = false);

/// <summary>Custom status while running: which phase, for progress in the status endpoint.</summary>
public sealed record RunProgress(string Phase, string? Workload, int Slices);

public sealed record TargetsInput(string RunId, bool Table, bool Blob);

/// <param name="ReportedEntities">Every entity the run says it stored, warm-up included.</param>
public sealed record VerifyTableInput(string TableName, long ReportedEntities);

/// <param name="ContentMd5BySlice">Null: check counts and lengths only. Otherwise each slice's content MD5, and every blob is read back.</param>
public sealed record VerifyBlobsInput(string ContainerName, long ReportedBlobs, long BlobSizeBytes, string?[]? ContentMd5BySlice);

public sealed record StoreResultInput(RunSummary Summary, SliceResult[] Slices);

/// <summary>What the activity host looks like: deterministic facts the orchestrator may not read itself.</summary>
public sealed record EnvironmentInfo(string TargetKind, string Machine, string Runtime, int ProcessorCount, int TargetAccounts = 1);

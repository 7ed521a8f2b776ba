using System.Runtime.InteropServices;
using Azure;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Verification;
using StorageBench.Engine.Workloads;
using StorageBench.Results;

namespace StorageBench.Orchestration;

/// <summary>
/// The activities: each one a thin call into the engine or the results store. A host (the in-process
/// host, or a Function App) binds each method to its <see cref="ActivityNames"/> entry.
/// </summary>
/// <param name="targets">The target accounts; a slice's plan names the one it writes to.</param>
/// <param name="telemetry">Null when no Application Insights connection is configured: telemetry is then skipped.</param>
public sealed class BenchmarkActivities(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TimeProvider time, TelemetryEmitter? telemetry = null,
    RegressionRule? regressionRule = null)
{
    private readonly RegressionRule _rule = regressionRule ?? new RegressionRule();

    public Task<EnvironmentInfo> DescribeEnvironmentAsync() => Task.FromResult(new EnvironmentInfo(
        targets[0].Kind, Environment.MachineName, RuntimeInformation.FrameworkDescription, Environment.ProcessorCount, targets.Count));

    /// <summary>Creates the run's table and/or container in every target account.</summary>
    public async Task<bool> PrepareTargetsAsync(TargetsInput input, CancellationToken ct)
    {
        foreach (var target in targets)
        {
            using var clients = target.CreateClients(new() { SdkRetries = true });
            if (input.Table)
            {
                await clients.Tables.CreateTableIfNotExistsAsync(Planner.TableName(input.RunId), ct).ConfigureAwait(false);
            }
            if (input.Blob)
            {
                await clients.Blobs.GetBlobContainerClient(Planner.ContainerName(input.RunId)).CreateIfNotExistsAsync(cancellationToken: ct).ConfigureAwait(false);
            }
        }
        return true;
    }

    public Task<SliceResult> RunTableSliceAsync(TableSlicePlan plan, CancellationToken ct) => TableInsertWorkload.RunAsync(plan, targets[plan.TargetIndex], time, ct);

    public Task<SliceResult> RunBlobSliceAsync(BlobSlicePlan plan, CancellationToken ct) => BlobUploadWorkload.RunAsync(plan, targets[plan.TargetIndex], time, ct);

    public Task<VerificationResult> VerifyTableAsync(VerifyTableInput input, CancellationToken ct) =>
        GroundTruth.VerifyTableAsync(targets, input.TableName, input.ReportedEntities, ct);

    public Task<VerificationResult> VerifyBlobsAsync(VerifyBlobsInput input, CancellationToken ct) =>
        GroundTruth.VerifyBlobsAsync(targets, input.ContainerName, input.ReportedBlobs, input.BlobSizeBytes, input.ContentMd5BySlice, ct);

    public async Task<bool> StoreResultAsync(StoreResultInput input, CancellationToken ct)
    {
        await results.SaveAsync(input.Summary, input.Slices, ct).ConfigureAwait(false);
        return true;
    }

    public async Task<RegressionVerdict> CheckRegressionAsync(RunSummary summary, CancellationToken ct) =>
        _rule.Evaluate(await results.BaselineAsync(summary, _rule.MaxBaselineRuns, ct).ConfigureAwait(false));

    /// <summary>Sends the run (and its regression verdict, if any) to Application Insights; false when not configured.</summary>
    public async Task<bool> EmitTelemetryAsync(RunSummary summary, CancellationToken ct)
    {
        if (telemetry is null)
        {
            return false;
        }
        await telemetry.EmitAsync(summary, ct).ConfigureAwait(false);
        return true;
    }

    /// <summary>Deletes the run's benchmark table and container in every target account, whichever exist. Safe after any failure.</summary>
    public async Task<bool> DeleteTargetsAsync(TargetsInput input, CancellationToken ct)
    {
        foreach (var target in targets)
        {
            using var clients = target.CreateClients(new() { SdkRetries = true });
            try
            {
                await clients.Tables.DeleteTableAsync(Planner.TableName(input.RunId), ct).ConfigureAwait(false);
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
            }
            await clients.Blobs.GetBlobContainerClient(Planner.ContainerName(input.RunId)).DeleteIfExistsAsync(cancellationToken: ct).ConfigureAwait(false);
        }
        return true;
    }
}

using Azure.Data.Tables;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

/// <summary>Every table, queue and container in an account: what a test of an account of its own expects to be empty after a run.</summary>
internal static class AccountContents
{
    public static async Task<List<string>> AllAsync(StorageTarget account)
    {
        var names = new List<string>();
        await foreach (var t in new TableServiceClient(account.ConnectionString).QueryAsync())
        {
            names.Add("table " + t.Name);
        }
        await foreach (var q in new QueueServiceClient(account.ConnectionString).GetQueuesAsync())
        {
            names.Add("queue " + q.Name);
        }
        await foreach (var c in new BlobServiceClient(account.ConnectionString).GetBlobContainersAsync())
        {
            names.Add("container " + c.Name);
        }
        return names;
    }

    /// <summary>What is left of a run's own task hub (queues, tables, containers named after it) in a control-plane account: nothing, once the run has ended.</summary>
    public static async Task<List<string>> OfRunHubAsync(StorageTarget controlPlane, string runId)
    {
        string hub = StorageBench.TaskHub.TaskHubSettings.ForRun(runId);
        return [.. (await AllAsync(controlPlane)).Where(n => n.Contains(hub, StringComparison.OrdinalIgnoreCase))];
    }
}

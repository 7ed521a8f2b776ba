using CsCheck;
using StorageBench.Engine.Targets;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>
/// `serve`, `worker` and `run --external-workers` meet on their account's shared hub: a worker writes to the account it was
/// given, so the workers of two accounts must never share one (two serves once did, and a run's slices were written into
/// the other's account). The hub is named from the account's name and endpoints, never its key.
/// </summary>
[Trait("Category", "Unit")]
public class SharedHubTests
{
    private sealed record Account(string Name, int Port, byte[] Key, bool Endpoints);

    private static readonly Gen<Account> Accounts = Gen.Select(Gen.Char['a', 'z'].Array[3, 24].Select(c => new string(c)), Gen.Int[1024, 65535],
        Gen.Byte.Array[64], Gen.Bool, (name, port, key, endpoints) => new Account(name, port, key, endpoints));

    private static StorageTarget TargetOf(Account a, byte[]? key = null)
    {
        string secret = Convert.ToBase64String(key ?? a.Key);
        return StorageTarget.FromConnectionString(a.Endpoints
            ? $"DefaultEndpointsProtocol=http;AccountName={a.Name};AccountKey={secret};BlobEndpoint=http://127.0.0.1:{a.Port}/{a.Name};TableEndpoint=http://127.0.0.1:{a.Port + 1}/{a.Name};"
            : $"DefaultEndpointsProtocol=https;AccountName={a.Name};AccountKey={secret};EndpointSuffix=core.windows.net");
    }

    [Fact]
    public void TwoAccountsNeverShareAHubAndAnAccountKeepsItsHubWhateverItsKey() =>
        Gen.Select(Accounts, Accounts, Gen.Byte.Array[64]).Sample((a, b, otherKey) =>
        {
            string hub = TaskHubSettings.SharedHubFor([TargetOf(a)]);
            Assert.True(TaskHubSettings.IsValidHubName(hub), hub);
            Assert.StartsWith(TaskHubSettings.DefaultHubName, hub, StringComparison.Ordinal);
            Assert.DoesNotContain(Convert.ToBase64String(a.Key), hub, StringComparison.Ordinal);
            Assert.Equal(hub, TaskHubSettings.SharedHubFor([TargetOf(a, otherKey)]));
            bool sameAccount = TargetOf(a).Identity == TargetOf(b).Identity;
            Assert.Equal(sameAccount, hub == TaskHubSettings.SharedHubFor([TargetOf(b)]));
            Assert.NotEqual(hub, TaskHubSettings.SharedHubFor([TargetOf(a), TargetOf(b)]));
        });

    [Fact]
    public void AnAccountsIdentityHoldsItsNameAndEndpointsButNotItsKey()
    {
        var target = StorageTarget.FromConnectionString($"AccountName=devstoreaccount1;AccountKey={StorageTarget.DevelopmentAccountKey};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1");
        Assert.Equal("accountkey=***;accountname=devstoreaccount1;blobendpoint=http://127.0.0.1:10000/devstoreaccount1", target.Identity);
        Assert.NotEqual(target.Identity, StorageTarget.FromConnectionString(target.ConnectionString!.Replace("10000", "10001", StringComparison.Ordinal)).Identity);
    }
}

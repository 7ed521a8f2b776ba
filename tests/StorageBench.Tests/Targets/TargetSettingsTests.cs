using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class TargetSettingsTests
{
    private static Func<string, string?> Settings(params (string Name, string Value)[] values) =>
        name => values.FirstOrDefault(v => v.Name == name).Value;

    [Fact]
    public void AConnectionStringNamesTheTargetAndResultsDefaultToIt()
    {
        var target = Assert.Single(TargetSettings.Targets(Settings((TargetSettings.TargetConnectionString, "UseDevelopmentStorage=true"))));
        Assert.Equal("Azurite", target.Kind);
        Assert.Same(target, TargetSettings.Results(Settings(), target));
    }

    [Fact]
    public void EndpointsNameIdentityTargetsOneAccountPerEntry()
    {
        var targets = TargetSettings.Targets(Settings(
            (TargetSettings.TargetTableEndpoints, "https://a.table.core.windows.net/, https://b.table.core.windows.net/"),
            (TargetSettings.TargetBlobEndpoints, "https://a.blob.core.windows.net/,https://b.blob.core.windows.net/")));
        Assert.Equal(2, targets.Count);
        Assert.Equal(new Uri("https://b.blob.core.windows.net/"), targets[1].BlobEndpoint);
        var target = targets[0];
        Assert.Null(target.ConnectionString);
        Assert.Equal("AzureStorage", target.Kind);
        Assert.Equal(new Uri("https://a.table.core.windows.net/"), target.TableEndpoint);
        Assert.Equal(new Uri("https://a.blob.core.windows.net/"), target.BlobEndpoint);

        var results = TargetSettings.Results(Settings((TargetSettings.ResultsTableEndpoint, "https://host.table.core.windows.net/")), target);
        Assert.Equal(new Uri("https://host.table.core.windows.net/"), results.TableEndpoint);
        // Building identity-based clients needs no call to Azure.
        using var clients = target.CreateClients(new());
        Assert.Equal("a", clients.Tables.AccountName);
    }

    [Fact]
    public void NoSettingMeansNoTargetAndUnevenListsOrABadEndpointIsAClearError()
    {
        Assert.Empty(TargetSettings.Targets(Settings()));
        var uneven = Assert.Throws<ArgumentException>(() => TargetSettings.Targets(Settings(
            (TargetSettings.TargetTableEndpoints, "https://a.table.core.windows.net/,https://b.table.core.windows.net/"),
            (TargetSettings.TargetBlobEndpoints, "https://a.blob.core.windows.net/"))));
        Assert.Contains("lists 2 account(s) but STORAGEBENCH_TARGET_BLOB_ENDPOINTS lists 1", uneven.Message);
        var bad = Assert.Throws<ArgumentException>(() => TargetSettings.Targets(Settings(
            (TargetSettings.TargetTableEndpoints, "not-a-url"), (TargetSettings.TargetBlobEndpoints, "https://a.blob.core.windows.net/"))));
        Assert.Contains("STORAGEBENCH_TARGET_TABLE_ENDPOINTS: \"not-a-url\" is not an http(s) endpoint", bad.Message);
    }

    [Fact]
    public void OneEndpointListAloneIsATargetWithThatServiceOnly()
    {
        var blobs = TargetSettings.Targets(Settings((TargetSettings.TargetBlobEndpoints, "https://a.blob.core.windows.net/,https://b.blob.core.windows.net/")));
        Assert.Equal(2, blobs.Count);
        Assert.All(blobs, t => Assert.Equal((false, true, TargetSettings.TargetBlobEndpoints), (t.Has(TargetService.Table), t.Has(TargetService.Blob), t.Setting)));
        var table = Assert.Single(TargetSettings.Targets(Settings((TargetSettings.TargetTableEndpoints, "https://a.table.core.windows.net/"))));
        Assert.Equal((true, false), (table.Has(TargetService.Table), table.Has(TargetService.Blob)));
        Assert.Null(table.BlobEndpoint);
    }
}

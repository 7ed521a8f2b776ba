using System.Reflection;
using System.Runtime;
using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A run's environment names the Azure SDK versions the sdk driver measured and the GC mode it ran under, as
/// Azure.Test.Perf prints them: a figure that moved with an SDK upgrade says so in its summary.
/// </summary>
[Trait("Category", "Unit")]
public class DriverRuntimeTests
{
    [Fact]
    public void TheEnvironmentNamesTheLoadedAzureSdkVersionsAndTheGcMode()
    {
        var sdk = DriverRuntime.AzureSdkVersions();
        foreach (var (name, type) in new[] { ("Azure.Core", typeof(Azure.Response)), ("Azure.Data.Tables", typeof(Azure.Data.Tables.TableClient)),
            ("Azure.Storage.Blobs", typeof(Azure.Storage.Blobs.BlobClient)) })
        {
            string loaded = type.Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()!.InformationalVersion;
            Assert.Matches(@"^\d+\.\d+\.\d+", sdk[name]);
            Assert.StartsWith(sdk[name], loaded);
            Assert.DoesNotContain('+', sdk[name]);
        }
        Assert.All(sdk.Keys, k => Assert.StartsWith("Azure.", k));
        Assert.Equal($"{(GCSettings.IsServerGC ? "server" : "workstation")}, {(GCSettings.LatencyMode == GCLatencyMode.Batch ? "non-concurrent" : "concurrent")}",
            DriverRuntime.GarbageCollector);

        // What the activity describes reaches the run's environment, and summary.json.
        var info = new EnvironmentInfo("Azurite", "m", "r", 2) { AzureSdk = sdk, GarbageCollector = DriverRuntime.GarbageCollector };
        var json = JsonDocument.Parse(JsonSerializer.Serialize(info.ToRun(1, "cli", null), JsonDefaults.Options)).RootElement;
        Assert.Equal(sdk["Azure.Data.Tables"], json.GetProperty("azureSdk").GetProperty("Azure.Data.Tables").GetString());
        Assert.Equal(DriverRuntime.GarbageCollector, json.GetProperty("garbageCollector").GetString());
    }
}

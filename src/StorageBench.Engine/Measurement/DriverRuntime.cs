using System.Reflection;
using System.Runtime;
using Azure.Data.Tables;
using Azure.Storage.Blobs;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// What the driver's figures depend on besides the machine, as Azure.Test.Perf prints it: the Azure SDK assemblies
/// the sdk driver measures (their versions move its latency and CPU) and the garbage collector's mode.
/// </summary>
public static class DriverRuntime
{
    /// <summary>
    /// Each Azure SDK assembly loaded in this process, name → version (informational, without the commit suffix). The
    /// ones the workloads call are loaded first, so they are listed even before the first request.
    /// </summary>
    public static IReadOnlyDictionary<string, string> AzureSdkVersions()
    {
        _ = new[] { typeof(Azure.Response), typeof(TableClient), typeof(BlobClient) };
        return new SortedDictionary<string, string>(AppDomain.CurrentDomain.GetAssemblies()
            .Select(a => a.GetName())
            .Where(n => n.Name is { } name && name.StartsWith("Azure.", StringComparison.Ordinal))
            .DistinctBy(n => n.Name)
            .ToDictionary(n => n.Name!, n => Version(n.Name!) ?? n.Version?.ToString() ?? ""), StringComparer.Ordinal);
    }

    /// <summary>"server, concurrent", "workstation, non-concurrent", ….</summary>
    public static string GarbageCollector =>
        $"{(GCSettings.IsServerGC ? "server" : "workstation")}, {(GCSettings.LatencyMode == GCLatencyMode.Batch ? "non-concurrent" : "concurrent")}";

    private static string? Version(string assembly) =>
        AppDomain.CurrentDomain.GetAssemblies().FirstOrDefault(a => a.GetName().Name == assembly)
            ?.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0];
}

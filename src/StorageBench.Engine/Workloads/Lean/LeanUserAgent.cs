using System.Reflection;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>The lean driver's User-Agent: the SDK package it stands in for, at the version this process loaded (never a hard-coded one).</summary>
public static class LeanUserAgent
{
    /// <summary>"StorageBench-lean (replaces azsdk-net-Storage.Blobs/12.30.1)" for the Azure.Storage.Blobs assembly, as Azure.Core names it.</summary>
    public static string Replacing(Assembly sdk)
    {
        string version = sdk.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? sdk.GetName().Version?.ToString() ?? "";
        int build = version.IndexOf('+', StringComparison.Ordinal);
        string package = sdk.GetName().Name ?? "";
        return $"StorageBench-lean (replaces azsdk-net-{(package.StartsWith("Azure.", StringComparison.Ordinal) ? package[6..] : package)}/{(build < 0 ? version : version[..build])})";
    }
}

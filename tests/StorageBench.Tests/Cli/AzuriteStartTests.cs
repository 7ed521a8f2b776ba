using System.Diagnostics;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// Issue 45 item 2: every Azurite the tool starts runs with telemetry off, so it need not load its telemetry SDK as it
/// starts (half of its start). The preload leaves Azurite the real module, loaded when first touched.
/// </summary>
[Trait("Category", "EndToEnd")]
public class AzuriteStartTests
{
    [Fact]
    public async Task ThePreloadLoadsTheTelemetrySdkOnlyWhenItIsFirstTouched()
    {
        const string script = """
            const loaded = () => Object.keys(require.cache).some(k => k.includes("/node_modules/applicationinsights/"));
            const ai = require("applicationinsights");
            const before = loaded();
            const setup = typeof ai.setup, client = typeof ai.TelemetryClient;
            console.log(`${before} ${loaded()} ${setup} ${client}`);
            """;
        var psi = new ProcessStartInfo("node", ["-e", script])
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
            WorkingDirectory = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(AzuriteServer.FindExecutable())!, "..", "..")),
        };
        AzuriteServer.DeferTelemetrySdk(psi);
        using var node = Process.Start(psi)!;
        var stderr = node.StandardError.ReadToEndAsync();
        string stdout = await node.StandardOutput.ReadToEndAsync();
        await node.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(1));

        Assert.True(node.ExitCode == 0, await stderr);
        // Not loaded by the require; loaded, and the real module's functions handed out, once a member is read.
        Assert.Equal("false true function function", stdout.Trim());
    }

    [Fact]
    public async Task AnAzuriteTheToolStartsPreloadsIt()
    {
        await using var azurite = await AzuriteServer.StartAsync();
        // setsid runs Azurite's session under the pid the tool started: its node process is the one in that session running azurite.
        string? nodeOptions = null;
        foreach (string dir in Directory.EnumerateDirectories("/proc").Where(d => int.TryParse(Path.GetFileName(d), out _)))
        {
            try
            {
                string[] stat = File.ReadAllText(Path.Combine(dir, "stat")).Split(')')[^1].Split(' ', StringSplitOptions.RemoveEmptyEntries);
                if (stat[3] == azurite.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture)
                    && File.ReadAllText(Path.Combine(dir, "cmdline")).Contains("azurite", StringComparison.Ordinal)
                    && File.ReadAllText(Path.Combine(dir, "cmdline")).StartsWith("node", StringComparison.Ordinal))
                {
                    nodeOptions = File.ReadAllText(Path.Combine(dir, "environ")).Split('\0').FirstOrDefault(v => v.StartsWith("NODE_OPTIONS=", StringComparison.Ordinal));
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // A process that ended while it was read.
            }
        }

        Assert.NotNull(nodeOptions);
        Assert.Contains($"--require \"{AzuriteServer.TelemetryPreload}\"", nodeOptions);
        Assert.True(File.Exists(AzuriteServer.TelemetryPreload));
    }
}

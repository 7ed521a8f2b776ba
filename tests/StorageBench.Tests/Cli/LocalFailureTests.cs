using System.Diagnostics;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// Issue 27, item 4: what is wrong on this machine is not reported as storage ("error: storage: connection dropped"):
/// a missing Azurite and a busy port each get their own line, saying what is missing or busy and what to do.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class LocalFailureTests
{
    [Fact]
    public async Task RunOutsideTheRepositoryWithoutAzuriteSaysAzuriteIsNotInstalledHere()
    {
        // The installed tool: the CLI's files in a folder of their own, run from an empty folder, both outside the repository.
        string tool = Directory.CreateTempSubdirectory("sb-tool").FullName;
        foreach (string file in Directory.EnumerateFiles(AppContext.BaseDirectory))
        {
            File.Copy(file, Path.Combine(tool, Path.GetFileName(file)));
        }
        string empty = Directory.CreateTempSubdirectory("sb-empty").FullName;
        var psi = new ProcessStartInfo("dotnet", [Path.Combine(tool, "storagebench.dll"), "run"])
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = empty,
        };
        foreach (string name in psi.Environment.Keys.Where(k => k.StartsWith("STORAGEBENCH_", StringComparison.Ordinal)).ToList())
        {
            psi.Environment.Remove(name);
        }
        using var cli = Process.Start(psi)!;
        var stdout = cli.StandardOutput.ReadToEndAsync();
        string stderr = await cli.StandardError.ReadToEndAsync();
        await cli.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));

        Assert.Equal(1, cli.ExitCode);
        Assert.Equal("error: Azurite is not installed here (no node_modules/.bin/azurite in this folder or above it): " +
            "run from the repository after ./scripts/install.sh, or pass --connection-string to test a storage account", stderr.Trim());
        Assert.DoesNotContain("Run ", await stdout);
    }

    [Fact]
    public async Task ServeOnAPortAlreadyInUseSaysThePortIsInUseAndWhatToPassBeforeItStartsAnything()
    {
        await using var first = await LoopbackServer.StartAsync(0, _ => { });
        int port = first.Address.Port;
        var (stdout, stderr) = (new StringWriter(), new StringWriter());

        // No --connection-string: a serve that got past the port would start Azurite as its target, and say so on stdout.
        int exit = await CliApp.RunAsync(["serve", "--port", $"{port}"], stdout, stderr, default);

        Assert.Equal(1, exit);
        Assert.Equal($"error: port {port} on 127.0.0.1 is in use (another storagebench serve, or another program): pass --port N for another one, or --port 0 for a free one",
            stderr.ToString().Trim());
        Assert.Equal("", stdout.ToString());
    }
}

/// <summary>Issue 27, item 10: one version everywhere — what --version says is what summaries record as the tool's version.</summary>
[Trait("Category", "Unit")]
public class VersionTests
{
    [Fact]
    public async Task VersionSaysTheToolVersionSummariesRecord()
    {
        var stdout = new StringWriter();
        Assert.Equal(0, await CliApp.RunAsync(["--version"], stdout, new StringWriter(), default));
        Assert.StartsWith($"storagebench {StorageBench.Engine.Measurement.ToolVersion.Version} (commit ", stdout.ToString());
        Assert.Equal("0.1.0", StorageBench.Engine.Measurement.ToolVersion.Version);
    }
}

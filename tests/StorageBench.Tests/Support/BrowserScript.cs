using System.Diagnostics;
using System.Text.Json.Nodes;

namespace StorageBench.Tests;

/// <summary>A node script of tests/StorageBench.Tests/Dashboard that drives headless Chromium and prints what it saw as its last line, JSON.</summary>
internal static class BrowserScript
{
    /// <summary>Runs it; what it saw. Bounded: a hung browser fails the test, it does not hold the suite.</summary>
    public static async Task<JsonObject> RunAsync(string script, TimeSpan limit, params string[] args)
    {
        var psi = new ProcessStartInfo("node") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = Repo.Root() };
        foreach (string arg in new[] { Path.Combine("tests", "StorageBench.Tests", "Dashboard", script) }.Concat(args))
        {
            psi.ArgumentList.Add(arg);
        }
        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(limit);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new Xunit.Sdk.XunitException($"{script} did not finish within {limit.TotalMinutes:0} minutes: {await stderr}");
        }
        Assert.True(process.ExitCode == 0, $"{script} exited {process.ExitCode}: {await stderr}");
        return JsonNode.Parse((await stdout).Trim().Split('\n')[^1])!.AsObject();
    }
}

using System.Diagnostics;

namespace StorageBench.Tests;

/// <summary>The CLI as its own process (the build next to the tests), from the repository root so it finds Azurite.</summary>
internal static class CliProcess
{
    public static Process Start(IReadOnlyDictionary<string, string>? environment, params string[] args)
    {
        var psi = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = Repo.Root(),
        };
        psi.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "storagebench.dll"));
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            psi.Environment[name] = value;
        }
        return Process.Start(psi)!;
    }

    /// <summary>Runs to the end: the exit code and everything written to stdout and stderr.</summary>
    public static async Task<(int Exit, string Output)> RunAsync(IReadOnlyDictionary<string, string>? environment, params string[] args)
    {
        using var cli = Start(environment, args);
        var stdout = cli.StandardOutput.ReadToEndAsync();
        var stderr = cli.StandardError.ReadToEndAsync();
        await cli.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(3));
        return (cli.ExitCode, await stdout + await stderr);
    }
}

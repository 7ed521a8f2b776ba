using System.Diagnostics;

namespace StorageBench.Tests;

/// <summary>What a CLI process started by <see cref="CliProcess"/> prints.</summary>
internal static class CliOutput
{
    /// <summary>The run id from the CLI's "Run … started" line.</summary>
    public static async Task<string> RunIdAsync(Process cli)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < TimeSpan.FromMinutes(1))
        {
            string? line = await cli.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromMinutes(1));
            if (line is null)
            {
                break;
            }
            if (line.StartsWith("Run ", StringComparison.Ordinal) && line.Contains(" started", StringComparison.Ordinal))
            {
                // Keep reading, so the CLI never blocks on a full pipe.
                _ = cli.StandardOutput.ReadToEndAsync();
                return line.Split(' ')[1];
            }
        }
        throw new Xunit.Sdk.XunitException("the CLI printed no \"Run … started\" line");
    }
}

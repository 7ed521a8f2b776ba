using System.Diagnostics;
using System.Reflection;
using System.Text.RegularExpressions;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// The Function App (functions/StorageBench.Functions) cannot be built here against its real packages (not on this
/// machine's mirror): scripts/check-functions.sh compiles its sources against tests/StorageBench.Functions.CompileSurface.
/// These tests show that check can fail, and that every orchestrator and activity name has its function.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(BuildsCollection.Name)]
public class FunctionAppTests
{
    private static readonly string Root = Repo.Root();

    [Fact]
    public async Task MisusingADurableApiTheAppUsesFailsTheCompileCheck()
    {
        // Two mistakes an in-process Durable habit makes: a client member that does not exist in isolated Durable,
        // and a TimeSpan where CallActivityAsync takes TaskOptions.
        string probe = Path.Combine(Path.GetTempPath(), $"probe-{Guid.NewGuid():N}.cs");
        await File.WriteAllTextAsync(probe, """
            namespace StorageBench.Functions;

            internal static class CompileProbe
            {
                public static Task Purge(Microsoft.DurableTask.Client.DurableTaskClient client) => client.PurgeInstanceHistoryAsync("run");

                public static Task<bool> Call(Microsoft.DurableTask.TaskOrchestrationContext context) =>
                    context.CallActivityAsync<bool>(StorageBench.Orchestration.ActivityNames.StoreRun, null, TimeSpan.FromSeconds(5));
            }
            """);
        try
        {
            var (exit, output) = await BuildCompileCheckAsync($"-p:CompileProbe={probe}");

            Assert.NotEqual(0, exit);
            Assert.Matches(@"error CS1061: 'DurableTaskClient' does not contain a definition for 'PurgeInstanceHistoryAsync'", output);
            Assert.Matches(@"error CS1503: Argument 3: cannot convert from 'System\.TimeSpan' to 'Microsoft\.DurableTask\.TaskOptions\??'", output);
        }
        finally
        {
            File.Delete(probe);
        }
    }

    [Fact]
    public void EveryOrchestratorAndActivityNameHasAFunction()
    {
        string source = string.Join("\n", Directory.GetFiles(Path.Combine(Root, "functions", "StorageBench.Functions"), "*.cs")
            .Select(File.ReadAllText));
        var declared = Regex.Matches(source, @"\[Function\((?:""(?<literal>[^""]+)""|(?<constant>[A-Za-z.]+))\)\]")
            .Select(m => m.Groups["literal"].Success ? m.Groups["literal"].Value : m.Groups["constant"].Value)
            .ToHashSet();

        var expected = typeof(ActivityNames).GetFields(BindingFlags.Public | BindingFlags.Static).Where(f => f.IsLiteral)
            .Select(f => (Value: (string)f.GetRawConstantValue()!, Constant: $"ActivityNames.{f.Name}"))
            .Append((Value: BenchmarkOrchestrator.Name, Constant: "BenchmarkOrchestrator.Name"))
            .Append((Value: StepOrchestrator.Name, Constant: "StepOrchestrator.Name"))
            .ToList();

        Assert.True(expected.Count >= 14, $"only {expected.Count} names found");   // 12 activities and 2 orchestrators today
        Assert.All(expected, e => Assert.True(declared.Contains(e.Value) || declared.Contains(e.Constant), $"no [Function] for {e.Value}"));
    }

    private static async Task<(int Exit, string Output)> BuildCompileCheckAsync(params string[] properties)
    {
        var psi = new ProcessStartInfo("dotnet") { WorkingDirectory = Root, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in (string[])["build", Path.Combine("tests", "StorageBench.Functions.CompileCheck", "StorageBench.Functions.CompileCheck.csproj"),
            "-c", "Release", "--nologo", "-v", "q", "-nodeReuse:false", .. properties])
        {
            psi.ArgumentList.Add(a);
        }
        BuildEnvironment.Clean(psi);
        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        await process.WaitForExitAsync(timeout.Token);
        return (process.ExitCode, await stdout + await stderr);
    }
}

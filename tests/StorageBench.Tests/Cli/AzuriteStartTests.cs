using System.Diagnostics;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// Issue 45 item 2: every Azurite the tool starts runs with telemetry off and without a database, so it need not load its
/// telemetry SDK or its SQL blob server as it starts (more than half of its start). The preload leaves Azurite the real
/// modules, loaded when first touched.
/// </summary>
[Trait("Category", "EndToEnd")]
public class AzuriteStartTests
{
    [Theory]
    [InlineData("applicationinsights", "setup")]
    [InlineData("axios", "get")]
    [InlineData("jsonwebtoken", "decode")]
    public async Task ThePreloadLoadsAModuleAzuriteDoesNotUseHereOnlyWhenItIsFirstTouched(string module, string member)
    {
        // The __esModule flag, which compiled TypeScript reads as it imports, is answered as the real module answers it, unloaded.
        string script = $$"""
            const loaded = () => Object.keys(require.cache).some(k => k.includes("/node_modules/{{module}}/"));
            const m = require("{{module}}");
            const atRequire = loaded(), esModule = String(m.__esModule), atFlag = loaded();
            const kind = typeof m.{{member}};
            console.log(`${atRequire} ${atFlag} ${esModule} ${kind} ${loaded()}`);
            """;
        string real = (await NodeWithPreloadAsync($"console.log(String(require(\"{module}\").__esModule))", preload: false)).Trim();
        Assert.Equal($"false false {real} function true", await NodeWithPreloadAsync(script));
    }

    [Fact]
    public async Task ThePreloadLoadsTheSqlBlobServerAndSequelizeOnlyWhenFirstTouched()
    {
        // Azurite's blob server factory imports it as compiled TypeScript does (its __esModule flag read at once), and constructs
        // it only when AZURITE_DB names a database.
        const string script = """
            const Module = require("module");
            const loaded = () => Object.keys(require.cache).some(k => k.includes("/node_modules/sequelize/"));
            const factory = require.resolve("azurite/dist/src/blob/BlobServerFactory");
            require(factory);
            const afterFactory = loaded();
            const sql = Module._load("./SqlBlobServer", require.cache[factory]);
            const esModule = sql.__esModule, beforeTouch = loaded();
            console.log(`${afterFactory} ${esModule} ${beforeTouch} ${typeof sql.default} ${loaded()}`);
            """;
        Assert.Equal("false true false function true", await NodeWithPreloadAsync(script));
    }

    private static async Task<string> NodeWithPreloadAsync(string script, bool preload = true)
    {
        var psi = new ProcessStartInfo("node", ["-e", script])
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
            WorkingDirectory = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(AzuriteServer.FindExecutable())!, "..", "..")),
        };
        if (preload)
        {
            AzuriteServer.DeferUnusedModules(psi);
        }
        using var node = Process.Start(psi)!;
        var stderr = node.StandardError.ReadToEndAsync();
        string stdout = await node.StandardOutput.ReadToEndAsync();
        await node.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(1));

        Assert.True(node.ExitCode == 0, await stderr);
        return stdout.Trim();
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
        Assert.Contains($"--require \"{AzuriteServer.UnusedModulesPreload}\"", nodeOptions);
        Assert.True(File.Exists(AzuriteServer.UnusedModulesPreload));
    }
}

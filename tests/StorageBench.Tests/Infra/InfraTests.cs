using System.Diagnostics;
using System.Reflection;
using System.Text.Json;

namespace StorageBench.Tests;

/// <summary>
/// infra/bicep compiled and linted offline with the Bicep CLI, and the compiled ARM JSON checked for
/// the security settings a review would ask for. Deploying to Azure cannot happen here.
/// </summary>
[Trait("Category", "EndToEnd")]
public class InfraTests
{
    private static readonly string Root = Repo.Root();

    [Fact]
    public async Task BicepBuildAndLintPassWithNoErrorsAndNoWarnings()
    {
        var build = await BicepAsync(Root, "build", "infra/bicep/main.bicep", "--stdout");
        Assert.True(build.Exit == 0, build.Stderr);
        Assert.Equal("", build.Stderr.Trim());
        var lint = await BicepAsync(Root, "lint", "infra/bicep/main.bicep");
        Assert.True(lint.Exit == 0, lint.Stdout + lint.Stderr);
        Assert.Equal("", (lint.Stdout + lint.Stderr).Trim());
    }

    [Fact]
    public async Task TheCompiledTemplateMeetsTheSecuritySettings()
    {
        using var arm = await CompileAsync(Root);
        var violations = InfraSecurity.Violations(arm.RootElement);
        Assert.True(violations.Count == 0, string.Join("\n", violations));

        var resources = InfraSecurity.Resources(arm.RootElement).ToList();
        Assert.True(resources.Count(r => r.Type == "Microsoft.Storage/storageAccounts") >= 2, "host and at least one target account");
        Assert.Contains(resources, r => r.Type == "Microsoft.Insights/scheduledQueryRules");
        Assert.Contains(resources, r => r.Type == "Microsoft.Insights/workbooks");
        Assert.Contains(resources, r => r.Type == "Microsoft.Web/serverfarms" && r.Json.GetProperty("sku").GetProperty("tier").GetString() == "FlexConsumption");
        var runtime = resources.Single(r => r.Type == "Microsoft.Web/sites").Json.GetProperty("properties").GetProperty("functionAppConfig").GetProperty("runtime");
        Assert.Equal("dotnet-isolated", runtime.GetProperty("name").GetString());
        Assert.Equal("10.0", runtime.GetProperty("version").GetString());
    }

    public sealed record Flip(string File, string From, string To, string Expected);

    /// <summary>Each security setting turned the wrong way, and the violation the check must then report.</summary>
    private static readonly Flip[] Flips =
    [
        new("modules/storage.bicep", "allowSharedKeyAccess: false", "allowSharedKeyAccess: true", "allowSharedKeyAccess"),
        new("modules/storage.bicep", "minimumTlsVersion: 'TLS1_2'", "minimumTlsVersion: 'TLS1_0'", "minimumTlsVersion"),
        new("modules/storage.bicep", "allowBlobPublicAccess: false", "allowBlobPublicAccess: true", "allowBlobPublicAccess"),
        new("modules/storage.bicep", "supportsHttpsTrafficOnly: true", "supportsHttpsTrafficOnly: false", "supportsHttpsTrafficOnly"),
        new("modules/monitoring.bicep", "DisableLocalAuth: true", "DisableLocalAuth: false", "DisableLocalAuth"),
        new("modules/functionapp.bicep", "AzureWebJobsStorage__credential: 'managedidentity'",
            "AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=${hostStorage.name};AccountKey=${hostStorage.listKeys().keys[0].value}'", "AzureWebJobsStorage"),
        new("modules/storage-roles.bicep", "roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)",
            "roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'b24988ac-6180-42a0-ab88-20f7382dd24c')", "broad role"),
        new("main.bicep", "var storageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88'",
            "var storageQueueDataContributor = '00000000-0000-0000-0000-000000000000'", "role assignment missing: Storage Queue Data Contributor"),
    ];

    public static TheoryData<int> FlipIndexes() => new(Enumerable.Range(0, Flips.Length));

    /// <summary>Every flipped copy compiled by one Bicep process (--pattern): one start-up instead of one a flip.</summary>
    private static readonly Lazy<Task<string>> FlippedCopies = new(async () =>
    {
        string root = Directory.CreateTempSubdirectory("infra-flips").FullName;
        for (int i = 0; i < Flips.Length; i++)
        {
            string copy = CopyInfra(Path.Combine(root, $"flip{i}"));
            string path = Path.Combine(copy, "infra", "bicep", Flips[i].File);
            string text = await File.ReadAllTextAsync(path);
            Assert.Contains(Flips[i].From, text);
            await File.WriteAllTextAsync(path, text.Replace(Flips[i].From, Flips[i].To));
        }
        var build = await BicepAsync(root, "build", "--pattern", "flip*/infra/bicep/main.bicep");
        Assert.True(build.Exit == 0, build.Stderr);
        return root;
    });

    [Theory]
    [MemberData(nameof(FlipIndexes))]
    public async Task FlippingASecuritySettingFailsTheCheck(int flip)
    {
        string root = await FlippedCopies.Value;
        using var arm = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(root, $"flip{flip}", "infra", "bicep", "main.json")));
        var violations = InfraSecurity.Violations(arm.RootElement);
        Assert.True(violations.Any(v => v.Contains(Flips[flip].Expected, StringComparison.Ordinal)),
            $"{Flips[flip]} was not caught; the check reported: {string.Join("; ", violations)}");
    }

    private static async Task<JsonDocument> CompileAsync(string root)
    {
        var build = await BicepAsync(root, "build", "infra/bicep/main.bicep", "--stdout");
        Assert.True(build.Exit == 0, build.Stderr);
        return JsonDocument.Parse(build.Stdout);
    }

    /// <summary>infra/ with what it loads (queries/, specs/) in the same relative places, in <paramref name="target"/>.</summary>
    private static string CopyInfra(string target)
    {
        foreach (var dir in new[] { "infra/bicep", "queries", "specs" })
        {
            foreach (var file in Directory.GetFiles(Path.Combine(Root, dir), "*", SearchOption.AllDirectories))
            {
                string to = Path.Combine(target, Path.GetRelativePath(Root, file));
                Directory.CreateDirectory(Path.GetDirectoryName(to)!);
                File.Copy(file, to);
            }
        }
        return target;
    }

    private static async Task<(int Exit, string Stdout, string Stderr)> BicepAsync(string workingDirectory, params string[] args)
    {
        string bicep = typeof(InfraTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "BicepPath").Value!.Replace('\\', '/');
        // NuGet does not always keep the executable bit of a package's binary.
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(bicep, File.GetUnixFileMode(bicep) | UnixFileMode.UserExecute);
        }
        var psi = new ProcessStartInfo(bicep) { WorkingDirectory = workingDirectory, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in args)
        {
            psi.ArgumentList.Add(a);
        }
        psi.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        return (process.ExitCode, await stdout, await stderr);
    }
}

/// <summary>The security rules over compiled ARM JSON (nested deployments included); each violation says what and where.</summary>
public static class InfraSecurity
{
    public sealed record Resource(string Type, string Name, JsonElement Json);

    private static readonly Dictionary<string, string> RequiredRoles = new()
    {
        ["b7e6dc6d-f1e8-4753-8033-0f276bb0955b"] = "Storage Blob Data Owner (host)",
        ["ba92f5b4-2d11-453d-a403-e96b0029c9fe"] = "Storage Blob Data Contributor (targets)",
        ["974c5e8b-45b9-4653-ba55-5f855dd0fb88"] = "Storage Queue Data Contributor",
        ["0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3"] = "Storage Table Data Contributor",
        ["3913510d-42f4-4e42-8a64-420c390055eb"] = "Monitoring Metrics Publisher",
    };

    private static readonly Dictionary<string, string> BroadRoles = new()
    {
        ["8e3af657-a8ff-443c-a75c-2fe8c4bcb635"] = "Owner",
        ["b24988ac-6180-42a0-ab88-20f7382dd24c"] = "Contributor",
        ["17d1049b-9a84-46fb-8f53-869881c3d3ab"] = "Storage Account Contributor",
    };

    public static IEnumerable<Resource> Resources(JsonElement template)
    {
        if (!template.TryGetProperty("resources", out var resources))
        {
            yield break;
        }
        var list = resources.ValueKind == JsonValueKind.Array ? resources.EnumerateArray().ToList() : [.. resources.EnumerateObject().Select(p => p.Value)];
        foreach (var r in list)
        {
            string type = r.GetProperty("type").GetString()!;
            yield return new Resource(type, r.TryGetProperty("name", out var n) ? n.ToString() : "", r);
            if (type == "Microsoft.Resources/deployments" && r.GetProperty("properties").TryGetProperty("template", out var nested))
            {
                foreach (var inner in Resources(nested))
                {
                    yield return inner;
                }
            }
        }
    }

    public static List<string> Violations(JsonElement arm)
    {
        var v = new List<string>();
        var resources = Resources(arm).ToList();
        string all = arm.GetRawText();
        foreach (var s in resources.Where(r => r.Type == "Microsoft.Storage/storageAccounts"))
        {
            var p = s.Json.GetProperty("properties");
            Expect(v, p, "allowSharedKeyAccess", false, s.Name);
            Expect(v, p, "allowBlobPublicAccess", false, s.Name);
            Expect(v, p, "supportsHttpsTrafficOnly", true, s.Name);
            if (!p.TryGetProperty("minimumTlsVersion", out var tls) || tls.GetString() != "TLS1_2")
            {
                v.Add($"{s.Name}: minimumTlsVersion must be TLS1_2");
            }
        }
        foreach (var ai in resources.Where(r => r.Type == "Microsoft.Insights/components"))
        {
            Expect(v, ai.Json.GetProperty("properties"), "DisableLocalAuth", true, ai.Name);
        }
        foreach (var site in resources.Where(r => r.Type == "Microsoft.Web/sites"))
        {
            Expect(v, site.Json.GetProperty("properties"), "httpsOnly", true, site.Name);
            if (site.Json.GetProperty("identity").GetProperty("type").GetString() != "UserAssigned")
            {
                v.Add($"{site.Name}: must run as a user-assigned identity");
            }
        }
        var settings = resources.Where(r => r.Type == "Microsoft.Web/sites/config").Select(r => r.Json.GetProperty("properties")).ToList();
        if (settings.Count == 0 || settings.Any(s => !s.TryGetProperty("AzureWebJobsStorage__credential", out var c) || c.GetString() != "managedidentity"))
        {
            v.Add("app settings: AzureWebJobsStorage must be identity-based (AzureWebJobsStorage__credential = managedidentity)");
        }
        if (settings.Any(s => s.TryGetProperty("AzureWebJobsStorage", out _)))
        {
            v.Add("app settings: AzureWebJobsStorage must not be a connection string");
        }
        foreach (var marker in new[] { "AccountKey=", "listKeys(", "SharedAccessSignature" })
        {
            if (all.Contains(marker, StringComparison.OrdinalIgnoreCase))
            {
                v.Add($"template contains {marker}: keys or connection strings with keys are not allowed");
            }
        }
        var roles = resources.Where(r => r.Type == "Microsoft.Authorization/roleAssignments")
            .Select(r => r.Json.GetProperty("properties").GetProperty("roleDefinitionId").GetString()!)
            .Concat(RolesPassedToModules(arm, resources))
            .ToList();
        foreach (var (id, name) in RequiredRoles.Where(kv => !roles.Any(r => r.Contains(kv.Key, StringComparison.OrdinalIgnoreCase))))
        {
            v.Add($"role assignment missing: {name}");
        }
        foreach (var (id, name) in BroadRoles.Where(kv => roles.Any(r => r.Contains(kv.Key, StringComparison.OrdinalIgnoreCase))))
        {
            v.Add($"broad role assigned: {name} (use data-plane roles)");
        }
        if (arm.TryGetProperty("outputs", out var outputs))
        {
            foreach (var o in outputs.EnumerateObject().Where(o => new[] { "key", "secret", "password", "connectionstring" }.Any(w => o.Name.Contains(w, StringComparison.OrdinalIgnoreCase))
                || o.Value.GetRawText().Contains("ConnectionString", StringComparison.OrdinalIgnoreCase)))
            {
                v.Add($"output {o.Name} looks like a secret");
            }
        }
        if (arm.TryGetProperty("parameters", out var parameters))
        {
            foreach (var p in parameters.EnumerateObject().Where(p => p.Value.GetProperty("type").GetString()!.StartsWith("secure", StringComparison.OrdinalIgnoreCase)))
            {
                v.Add($"parameter {p.Name} is a secret: deployments take none");
            }
        }
        return v;
    }

    /// <summary>Role GUIDs handed to a role-assignment module as its roleDefinitionIds parameter, with [variables('x')] resolved.</summary>
    private static IEnumerable<string> RolesPassedToModules(JsonElement arm, List<Resource> resources)
    {
        arm.TryGetProperty("variables", out var variables);
        foreach (var d in resources.Where(r => r.Type == "Microsoft.Resources/deployments"))
        {
            if (d.Json.GetProperty("properties").TryGetProperty("parameters", out var parameters)
                && parameters.TryGetProperty("roleDefinitionIds", out var ids) && ids.TryGetProperty("value", out var values))
            {
                foreach (var item in values.EnumerateArray().Select(i => i.GetString()!))
                {
                    var m = System.Text.RegularExpressions.Regex.Match(item, @"^\[variables\('(\w+)'\)\]$");
                    yield return m.Success && variables.ValueKind == JsonValueKind.Object && variables.TryGetProperty(m.Groups[1].Value, out var resolved)
                        ? resolved.GetString()!
                        : item;
                }
            }
        }
    }

    private static void Expect(List<string> v, JsonElement properties, string name, bool expected, string resource)
    {
        if (!properties.TryGetProperty(name, out var value) || value.ValueKind != (expected ? JsonValueKind.True : JsonValueKind.False))
        {
            v.Add($"{resource}: {name} must be {(expected ? "true" : "false")}");
        }
    }
}

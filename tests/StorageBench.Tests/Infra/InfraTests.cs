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

    /// <summary>
    /// The option to close host storage to all networks but the app's (issue 43): off by default (the CLI outside Azure reads
    /// the results there); on, the app joins a subnet delegated as Flex Consumption needs, and the host account allows only it.
    /// </summary>
    [Fact]
    public async Task HostStorageCanBeClosedToTheAppsNetworkAndIsOpenByDefault()
    {
        using var arm = await CompileAsync(Root);
        var option = arm.RootElement.GetProperty("parameters").GetProperty("restrictHostStorageNetwork");
        Assert.Equal(JsonValueKind.False, option.GetProperty("defaultValue").ValueKind);

        var resources = InfraSecurity.Resources(arm.RootElement).ToList();
        var deployments = resources.Where(r => r.Type == "Microsoft.Resources/deployments").ToList();
        string Passed(string deployment, string parameter) =>
            deployments.Single(d => d.Name.Contains($"'{deployment}-", StringComparison.Ordinal)).Json.GetProperty("properties").GetProperty("parameters").GetProperty(parameter).GetRawText();
        Assert.Contains("parameters('restrictHostStorageNetwork')", Passed("hostStorage", "allowedSubnetId"), StringComparison.Ordinal);
        Assert.Contains("parameters('restrictHostStorageNetwork')", Passed("functionApp", "subnetId"), StringComparison.Ordinal);
        var vnet = resources.Single(r => r.Type == "Microsoft.Network/virtualNetworks").Json.GetRawText();
        Assert.Contains("Microsoft.App/environments", vnet, StringComparison.Ordinal);
        Assert.Contains("Microsoft.Storage", vnet, StringComparison.Ordinal);
        string acls = resources.First(r => r.Type == "Microsoft.Storage/storageAccounts").Json.GetProperty("properties").GetProperty("networkAcls").GetString()!;
        Assert.Contains("'defaultAction', 'Deny'", acls, StringComparison.Ordinal);
        Assert.Contains("'virtualNetworkRules'", acls, StringComparison.Ordinal);
        Assert.Contains("virtualNetworkSubnetId", resources.Single(r => r.Type == "Microsoft.Web/sites").Json.GetProperty("properties").GetRawText(), StringComparison.Ordinal);
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
        new("modules/functionapp.bicep", "allow: false", "allow: true", "basicPublishingCredentialsPolicies ftp"),
        new("modules/monitoring.bicep", "disableLocalAuth: true", "disableLocalAuth: false", "features.disableLocalAuth"),
        new("modules/storage.bicep", "resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {",
            "resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = if (false) {", "missing: 0 of 2 for Microsoft.Storage/storageAccounts/queueServices"),
        new("modules/functionapp.bicep", "resource appDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {",
            "resource appDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = if (false) {", "missing: 0 of 1 for Microsoft.Web/sites"),
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

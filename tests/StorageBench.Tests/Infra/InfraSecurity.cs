using System.Text.Json;

namespace StorageBench.Tests;

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
        foreach (var ws in resources.Where(r => r.Type == "Microsoft.OperationalInsights/workspaces"))
        {
            if (!ws.Json.GetProperty("properties").TryGetProperty("features", out var features) || !features.TryGetProperty("disableLocalAuth", out var off) || off.ValueKind != JsonValueKind.True)
            {
                v.Add($"{ws.Name}: features.disableLocalAuth must be true (queries and ingestion with Entra ID only)");
            }
        }
        foreach (var kind in new[] { "ftp", "scm" }.Where(k => !resources.Any(r => r.Type == "Microsoft.Web/sites/basicPublishingCredentialsPolicies" && Deployed(r)
            && r.Name.Contains($"'{k}'", StringComparison.Ordinal) && r.Json.GetProperty("properties").GetProperty("allow").ValueKind == JsonValueKind.False)))
        {
            v.Add($"Function App: basicPublishingCredentialsPolicies {kind} must be allow: false (no basic-auth publishing)");
        }
        v.AddRange(MissingDiagnostics(resources));
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

    /// <summary>Resources that must send their diagnostics to the workspace: each storage account, its blob, queue and table services, and the app.</summary>
    private static readonly (string Type, string Scope)[] Diagnosed =
    [
        ("Microsoft.Storage/storageAccounts", "resourceId('Microsoft.Storage/storageAccounts', "),
        ("Microsoft.Storage/storageAccounts", "resourceId('Microsoft.Storage/storageAccounts/blobServices', "),
        ("Microsoft.Storage/storageAccounts", "resourceId('Microsoft.Storage/storageAccounts/queueServices', "),
        ("Microsoft.Storage/storageAccounts", "resourceId('Microsoft.Storage/storageAccounts/tableServices', "),
        ("Microsoft.Web/sites", "resourceId('Microsoft.Web/sites', "),
    ];

    /// <summary>One diagnostic setting to a workspace, deployed, per resource that needs it (counted by scope: each module instance is its own nested template).</summary>
    private static IEnumerable<string> MissingDiagnostics(List<Resource> resources)
    {
        var settings = resources.Where(r => r.Type == "Microsoft.Insights/diagnosticSettings" && Deployed(r)
            && r.Json.GetProperty("properties").TryGetProperty("workspaceId", out var w) && w.GetString() is { Length: > 0 }).ToList();
        foreach (var (type, scope) in Diagnosed)
        {
            int needed = resources.Count(r => r.Type == type && Deployed(r));
            int found = settings.Count(s => s.Json.TryGetProperty("scope", out var sc) && sc.GetString()!.Contains(scope, StringComparison.Ordinal));
            if (found < needed)
            {
                yield return $"diagnostic settings to the workspace missing: {found} of {needed} for {scope.Split('\'')[1]}";
            }
        }
    }

    /// <summary>A resource whose condition is not the literal false: one that `if (false)` leaves out is none.</summary>
    private static bool Deployed(Resource r) => !r.Json.TryGetProperty("condition", out var c) || c.ValueKind != JsonValueKind.False;

    private static void Expect(List<string> v, JsonElement properties, string name, bool expected, string resource)
    {
        if (!properties.TryGetProperty(name, out var value) || value.ValueKind != (expected ? JsonValueKind.True : JsonValueKind.False))
        {
            v.Add($"{resource}: {name} must be {(expected ? "true" : "false")}");
        }
    }
}

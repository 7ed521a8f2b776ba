using System.Text.Json.Nodes;
using Azure.Data.Tables;
using StorageBench.Engine.Comparison;

namespace StorageBench.Orchestration;

/// <summary>What the API reads back from the results table: two runs compared, and the rows of the run list.</summary>
public sealed partial class RunsApi
{
    /// <summary>The API's way to have runs of different specs judged, as the comparison's note says it.</summary>
    public const string JudgeAnyway = "add judgeDifferentSpecs=true to the query of GET /api/compare";

    /// <summary>
    /// Two stored runs metric by metric against their noise, as storagebench compare judges them (the same rule and words); runs of
    /// different specs only with <paramref name="judgeDifferentSpecs"/> "true" (the CLI's --judge-different-specs).
    /// </summary>
    public async Task<ApiResponse> CompareAsync(string? baseline, string? candidate, CancellationToken ct, string? judgeDifferentSpecs = null)
    {
        var bad = new[] { ("baseline", baseline), ("candidate", candidate) }.Where(r => r.Item2 is null || !Planner.IsValidRunId(r.Item2))
            .Select(r => RunIdError(r.Item1, r.Item2)).ToList();
        bool judgeAnyway = false;
        if (judgeDifferentSpecs is not null && !bool.TryParse(judgeDifferentSpecs, out judgeAnyway))
        {
            bad.Add(new ValidationError("judgeDifferentSpecs", $"\"{judgeDifferentSpecs}\"", "must be true or false"));
        }
        if (bad.Count > 0)
        {
            return ApiResponse.FieldError(400, "", [.. bad]);
        }
        var figures = new List<RunFigures>();
        foreach (var (role, id) in new[] { ("baseline", baseline!), ("candidate", candidate!) })
        {
            if (await results.LoadRunFiguresAsync(id, ct).ConfigureAwait(false) is not { } run)
            {
                return ApiResponse.FieldError(404, "", new ValidationError(role, $"\"{id}\"", "is no run in the results table"));
            }
            figures.Add(run);
        }
        var history = figures[0].Scenario is { } scenario ? await results.RunToRunSpreadAsync(scenario, [baseline!, candidate!], ct, figures[0].Spec).ConfigureAwait(false) : null;
        return Compared(figures[0], figures[1], judgeAnyway, history);
    }

    /// <summary>The answer for two runs read: the verdict, the table's header and rows, and the report as Markdown, whose hints are the API's.</summary>
    public static ApiResponse Compared(RunFigures baseline, RunFigures candidate, bool judgeDifferentSpecs, IReadOnlyDictionary<string, RunToRunSpread>? history = null)
    {
        var comparison = RunComparison.Compare(baseline, candidate, judgeDifferentSpecs: judgeDifferentSpecs, history: history);
        return new ApiResponse(200, new JsonObject
        {
            ["baseline"] = baseline.RunId,
            ["candidate"] = candidate.RunId,
            ["verdict"] = comparison.Verdict(),
            ["header"] = new JsonArray([.. ComparisonReport.Header.Select(h => (JsonNode?)h)]),
            ["rows"] = new JsonArray([.. comparison.Workloads.SelectMany(w => w.Metrics.Select(m =>
                (JsonNode?)new JsonArray([.. new[] { w.Label }.Concat(ComparisonReport.Cells(m)).Select(c => (JsonNode?)c)])))]),
            ["markdown"] = ComparisonReport.Markdown(comparison, JudgeAnyway),
        });
    }

    /// <summary>A results-table row as JSON: every column but the binary histograms, camelCased, numbers as numbers.</summary>
    private static JsonNode RowJson(TableEntity row)
    {
        var json = new JsonObject { ["scenario"] = row.PartitionKey };
        foreach (var (key, value) in row.Where(kv => kv.Key is not ("PartitionKey" or "RowKey" or "odata.etag" or "Timestamp")).OrderBy(kv => kv.Key, StringComparer.Ordinal))
        {
            string name = char.ToLowerInvariant(key[0]) + key[1..];
            json[name] = value switch
            {
                byte[] => null,
                DateTimeOffset d => d.UtcDateTime,
                long l => l,
                int i => i,
                double d => d,
                bool b => b,
                _ => value?.ToString(),
            };
        }
        return json;
    }
}

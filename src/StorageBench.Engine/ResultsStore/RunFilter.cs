using System.Globalization;
using System.Text.RegularExpressions;
using Azure.Data.Tables;

namespace StorageBench.Engine.ResultsStore;

/// <summary>A threshold on one results-table column, e.g. TableEntities &gt;= 5000000000.</summary>
public sealed record Threshold(string Column, string Operator, double Value);

/// <summary>
/// Which run rows to list: scenario, time range, thresholds. Turned into an OData filter with the
/// SDK's filter builder, so an Int64 column is compared with an Int64 literal (5000000000L) — the
/// missing "L" that broke values above 2^31 in seed 004 — and dates with datetime'…'.
/// </summary>
public sealed partial record RunFilter(string? Scenario = null, DateTime? SinceUtc = null, DateTime? UntilUtc = null, IReadOnlyList<Threshold>? Thresholds = null)
{
    /// <summary>Run-row columns stored as Int64; every other numeric column is Double.</summary>
    public static IReadOnlySet<string> Int64Columns => ResultsColumns.Int64Columns;

    public static IReadOnlySet<string> DoubleColumns => ResultsColumns.DoubleColumns;

    private static readonly Dictionary<string, string> Operators = new() { [">="] = "ge", [">"] = "gt", ["<="] = "le", ["<"] = "lt", ["=="] = "eq", ["="] = "eq", ["!="] = "ne" };

    [GeneratedRegex(@"^\s*([A-Za-z0-9]+)\s*(>=|<=|!=|==|=|>|<)\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*$")]
    private static partial Regex ThresholdPattern();

    /// <summary>Parses "Column&gt;=Value"; the error names the text and the rule (the entry point names its option or parameter).</summary>
    public static Threshold ParseThreshold(string text)
    {
        var m = ThresholdPattern().Match(text);
        if (!m.Success)
        {
            throw new FormatException($"\"{text}\" must look like Column>=Number (operators >= > <= < = !=)");
        }
        string column = m.Groups[1].Value;
        if (!Int64Columns.Contains(column) && !DoubleColumns.Contains(column))
        {
            throw new FormatException($"\"{column}\" is not a numeric results column; use one of {string.Join(", ", Int64Columns.Concat(DoubleColumns).Order())}");
        }
        return new Threshold(column, m.Groups[2].Value, double.Parse(m.Groups[3].Value, CultureInfo.InvariantCulture));
    }

    public string ToODataFilter()
    {
        var parts = new List<string>();
        if (Scenario is not null)
        {
            parts.Add(TableClient.CreateQueryFilter($"PartitionKey eq {Scenario}"));
        }
        if (SinceUtc is { } since)
        {
            parts.Add(TableClient.CreateQueryFilter($"StartedUtc ge {DateTime.SpecifyKind(since, DateTimeKind.Utc)}"));
        }
        if (UntilUtc is { } until)
        {
            parts.Add(TableClient.CreateQueryFilter($"StartedUtc lt {DateTime.SpecifyKind(until, DateTimeKind.Utc)}"));
        }
        foreach (var t in Thresholds ?? [])
        {
            // The column name is checked against the known columns, never taken from the value side.
            string literal = Int64Columns.Contains(t.Column)
                ? TableClient.CreateQueryFilter($"{checked((long)Math.Round(t.Value))}")
                : TableClient.CreateQueryFilter($"{t.Value}");
            parts.Add($"{t.Column} {Operators[t.Operator]} {literal}");
        }
        return string.Join(" and ", parts);
    }
}

using System.Globalization;
using System.Text;

namespace StorageBench.Engine.Reports;

/// <summary>The cost estimate's part of summary.md (and so of summary.html, which renders the Markdown's tables).</summary>
public static class CostReport
{
    public static void AppendMarkdown(StringBuilder b, RunSummary s)
    {
        if (s.Cost is not { } cost)
        {
            return;
        }
        var p = cost.Prices;
        string billing = p.EntityGroupTransactionBilling == PriceTable.PerEntity ? "per entity in them" : "one per batch";
        b.AppendLine();
        b.AppendLine(CultureInfo.InvariantCulture,
            $"Cost estimate: {p.Currency} {Money(cost.Total)} for the storage requests of this run (an estimate, not a bill), priced with {p.File}: " +
            $"region {p.Region}; prices read {p.ReadOn}; entity group transactions billed {billing}. Source: {p.Source}.");
        b.AppendLine();
        b.AppendLine(CultureInfo.InvariantCulture, $"| workload | phase | requests | kind | failed | billed as | billed | {p.Currency} per 10,000 | {p.Currency} |");
        b.AppendLine("|---|---|---:|---|---:|---|---:|---:|---:|");
        foreach (var w in cost.Workloads)
        {
            string label = Label(w);
            foreach (var l in w.Lines)
            {
                if (l.Bytes is { } bytes)
                {
                    // Priced per GB, not per request.
                    b.AppendLine(CultureInfo.InvariantCulture,
                        $"| {label} | {l.Phase} | | {l.Kind}: {Money(bytes / 1e9)} GB | | {l.BilledAs} | | {(l.PricePerGb is { } gb ? Money(gb) + " per GB" : "no price in the table")} | {Money(l.Cost)} |");
                    continue;
                }
                b.AppendLine(CultureInfo.InvariantCulture,
                    $"| {label} | {l.Phase} | {F(l.Requests)} | {l.Kind} | {(l.Failed is { } f ? F(f) : "")} | {l.BilledAs} | {F(l.Billed)} | {Money(l.PricePer10k)} | {Money(l.Cost)} |");
            }
            b.AppendLine(CultureInfo.InvariantCulture,
                $"| {label} | storage | | data held: {Money(w.StorageGbMonths)} GB-months (deleted when the step ends) | | GB-month | | | {Money(w.StorageCost)} |");
        }
        b.AppendLine(CultureInfo.InvariantCulture, $"| total | | | | | | {F(cost.Workloads.Sum(w => w.BilledTransactions))} | | {Money(cost.Total)} |");
        b.AppendLine();
        foreach (var w in cost.Workloads)
        {
            var per = new List<string>();
            // The kind's own words: a read's cost is not a write's.
            var kind = WorkloadKind.Find(w.Workload);
            if (w.PerMillionEntities is { } m)
            {
                per.Add($"{p.Currency} {Money(m)} per million entities ({Money(w.AtScalePerMillionEntities ?? 0)} at scale: the {kind?.Work ?? "requests"} alone)");
            }
            if (w.PerGigabyte is { } g)
            {
                per.Add($"{p.Currency} {Money(g)} per GB {(w.PerMillionEntities is null ? kind?.Done ?? "moved" : "of entities")} ({Money(w.AtScalePerGigabyte ?? 0)} at scale)");
            }
            b.AppendLine(CultureInfo.InvariantCulture,
                $"- cost of {Label(w)}: {p.Currency} {Money(w.Total)} ({F(w.BilledTransactions)} billed requests){(per.Count > 0 ? "; " + string.Join("; ", per) : "")}.");
        }
        b.AppendLine(CultureInfo.InvariantCulture, $"- counted: {string.Join("; ", cost.Counting)}.");
        b.AppendLine(CultureInfo.InvariantCulture, $"- not included: {string.Join("; ", cost.Excludes)}.");
    }

    private static string Label(WorkloadCost w) =>
        w.StepParameter is null ? w.Workload : $"{w.Workload} {w.StepParameter.Split('.')[^1]}={F(w.StepValue ?? 0, "0.##")}";

    /// <summary>To 3 significant digits (requests cost fractions of a cent), never in exponent form.</summary>
    public static string Money(double v)
    {
        if (v == 0 || !double.IsFinite(v))
        {
            return "0";
        }
        int digits = Math.Clamp(2 - (int)Math.Floor(Math.Log10(Math.Abs(v))), 2, 12);
        return Math.Round(v, digits).ToString("#,0.############", CultureInfo.InvariantCulture);
    }

    private static string F(double v, string format = "#,0") => v.ToString(format, CultureInfo.InvariantCulture);
}

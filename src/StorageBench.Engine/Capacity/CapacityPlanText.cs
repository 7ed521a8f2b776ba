using System.Globalization;
using System.Text;

namespace StorageBench.Engine.Capacity;

/// <summary>A plan as the console shows it: the units, the bottleneck, latency, cost, and the basis of every figure.</summary>
public static class CapacityPlanText
{
    public static string Render(CapacityPlan plan, ScalabilityTargets targets)
    {
        var op = plan.OperatingPoint;
        var room = WorkloadList.Of(plan.Workload);
        var model = room.Capacity!;
        string unit = plan.Request.Unit;
        var N = room.Kind.PlanNumber;
        var b = new StringBuilder();
        void Line(string label, string value) => b.Append(CultureInfo.InvariantCulture, $"  {label,-24}{value}\n");

        string what = model.Describe(plan.Spec);
        b.Append(CultureInfo.InvariantCulture, $"Plan: {N(plan.Request.Target)} {unit} of {what} ({plan.Workload}) against {plan.TargetKind}\n");
        b.Append(CultureInfo.InvariantCulture, $"  from {op.Label}: {N(op.Rate)} {unit} over {op.Slices} slice(s), p50 {op.LatencyP50Ms:0.#} ms, p99 {op.LatencyP99Ms:0.#} ms (measured; {op.Source})\n\n");
        if (model.SizesPartitions)
        {
            Line("partitions", $"{plan.Partitions:N0}");
        }
        Line("slices", $"{plan.Slices:N0}");
        Line(model.InFlightLabel, $"{plan.InFlightPerSlice:N0}" + model.InFlightNote(plan));
        Line("target accounts", $"{plan.Accounts:N0}" + (plan.Accounts > 1 ? " (spread: one account cannot take the target)" : ""));
        double? cores = targets.CoresPerInstance(plan.Request.InstanceMemoryMb);
        Line("Function App instances", $"{plan.Instances:N0} × {plan.Request.InstanceMemoryMb} MB ({cores:0.##} core(s) each, {targets.File})" +
            (plan.DriverCores is { } need ? $"; driver CPU needed {need:0.##} core(s)" : "; driver CPU not measured"));
        Line("expected throughput", $"{N(plan.ExpectedThroughput)} {unit}" + model.ExpectedNote(plan));
        var bottleneck = plan.Bottleneck;
        Line("bottleneck", $"{bottleneck.Name}: {bottleneck.Units:0.##} × {N(bottleneck.PerUnit)} = {N(bottleneck.Capacity)} {unit}, " +
            $"{(bottleneck.Capacity / plan.Request.Target - 1) * 100:0}% above the target; binds first as the rate grows");
        Line("expected latency", $"p50 {op.LatencyP50Ms:0.#} ms, p99 {op.LatencyP99Ms:0.#} ms (measured at the operating point, where each slice ran {N(op.Rate / op.Slices)} {unit}; " +
            $"the plan runs each at {N(plan.ExpectedThroughput / plan.Slices)})");
        var c = plan.Cost;
        string compute = c.ComputePerHour is { } p ? $" + compute {c.Currency} {p:0.####} ({plan.Instances} instance(s) × {plan.Request.InstanceMemoryMb / 1024.0:0.#} GB × 3,600 s, busy all hour)" : " (compute not priced: the price table has no functionsFlexConsumptionOnDemandPerGbSecond)";
        Line("cost per hour", $"{c.Currency} {c.TotalPerHour:0.####}: {c.RequestsPerHour:N0} {model.RequestsName} {c.Currency} {c.RequestsCostPerHour:0.####}{compute}");
        if (c.GigabytesReadOutPerHour > 0)
        {
            Line("", c.EgressPerHour is { } egress
                ? $"+ {c.GigabytesReadOutPerHour:N1} GB read out {c.Currency} {egress:0.####} (dataTransferOutPerGb: assumed the driver reads from another region; none within the account's)"
                : $"{c.GigabytesReadOutPerHour:N1} GB read out per hour (egress not priced: the price table has no dataTransferOutPerGb)");
        }
        if (plan.Request.DurationSeconds is { } seconds)
        {
            // A long run (seed 001's 400 million inserts) is planned by its whole cost, not by the hour.
            double hours = seconds / 3600;
            Line("cost of the run", $"{c.Currency} {c.TotalPerHour * hours:0.####} for --duration {seconds:N0} s ({hours:0.##} h): {c.RequestsPerHour * hours:N0} {model.RequestsName}" +
                (c.ComputePerHour is { } perHour ? $", compute {c.Currency} {perHour * hours:0.####}" : "") +
                (c.GigabytesReadOutPerHour > 0 ? "" : "; no egress (nothing is read out of the account)") + "; Functions executions not priced (a few per slice)");
        }
        Line("", c.GigabytesWrittenPerHour > 0
            ? $"storage grows {c.GigabytesWrittenPerHour:N1} GB per hour, {c.Currency} {c.StoragePerMonthOfOneHour:0.####} per month held; prices: {c.PriceTable}"
            : $"reads store nothing new; prices: {c.PriceTable}");
        b.Append("\nlimits (units × each = together; where each figure comes from):\n");
        foreach (var l in plan.Limits)
        {
            b.Append(CultureInfo.InvariantCulture, $"  {l.Name,-14}{l.Units,6:0.##} × {N(l.PerUnit),10} = {N(l.Capacity),10} {unit}   {l.Basis}\n");
        }
        b.Append("assumed: ").Append(CultureInfo.InvariantCulture,
            $"the units add up (slices, partitions, accounts, cores scale out linearly); driver cores at most {CapacityPlanner.DriverCpuUtilization * 100:0}% busy\n");
        foreach (var note in plan.Notes)
        {
            b.Append("note: ").Append(note).Append('\n');
        }
        return b.ToString();
    }
}


namespace StorageBench.Engine.Capacity;

/// <summary>What tables and blobs size alike: storage accounts, Function App instances, and slices spread evenly over the accounts.</summary>
public static partial class CapacityPlanner
{
    /// <summary>How a plan writes its rate and names what it scales out: all that differs between workloads in <see cref="Size"/>.</summary>
    internal sealed record RateUnit(Func<double, string> Format, string ScalesOut, string Per);

    /// <summary>The units tables and blobs size alike: storage accounts, Function App instances, and slices spread evenly over the accounts.</summary>
    /// <param name="DriverCores">Null when no step recorded driver CPU.</param>
    internal sealed record Sizing(double PerAccount, string AccountBasis, int Accounts, int Instances, int Slices, double? Cores, PlanLimit? DriverCores)
    {
        /// <summary>The driver-cores limit, or, without driver CPU, a note that instances were sized by slices alone.</summary>
        public void AddDriverCores(List<PlanLimit> limits, List<string> notes)
        {
            if (DriverCores is { } l)
            {
                limits.Add(l);
            }
            else
            {
                notes.Add("driver CPU was not recorded by any step read: Function App instances are sized by slices alone (assumed)");
            }
        }
    }

    /// <summary>
    /// Sizes accounts, instances and slices for the target, or refuses with the reason. The same for tables and blobs:
    /// only the unit and, on Azure, the documented per-account figure (<paramref name="documentedAccount"/>) differ.
    /// </summary>
    /// <param name="documentedAccount">What one Azure account takes and why; null on Azurite, which has no documented targets.</param>
    internal static (Sizing? Sizing, string? Refusal) Size(RateUnit unit, List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request,
        ScalabilityTargets targets, string documented, double perSlice, (double PerAccount, string Basis)? documentedAccount)
    {
        double target = request.Target;
        double perAccount;
        string accountBasis;
        if (documentedAccount is { } d)
        {
            (perAccount, accountBasis) = d;
        }
        else
        {
            // Azurite is one process: more of anything on it shares the ceiling measured, so a target above it is refused, not spread.
            var bestAccount = sustained.MaxBy(s => s.Rate / s.TargetAccounts)!;
            perAccount = bestAccount.Rate / bestAccount.TargetAccounts;
            accountBasis = $"measured: {bestAccount.Label}, the highest rate against one Azurite";
            if (target > perAccount)
            {
                return (null, $"{unit.Format(target)} is beyond the highest rate measured against Azurite, {unit.Format(perAccount)} ({bestAccount.Label}); " +
                    $"Azurite is one local process, so more {unit.ScalesOut} on it share that ceiling: nothing measured supports this target");
            }
        }

        var cpu = CpuOf(op, sustained);
        var instanceCores = targets.CoresPerInstance(request.InstanceMemoryMb);
        if (instanceCores is null)
        {
            return (null, $"instance memory {request.InstanceMemoryMb} MB is not a Flex Consumption size (512, 2048 or 4096 MB)");
        }
        double? unitsPerCore = cpu is { } c ? 1e6 / c.MicrosecondsPerUnit * DriverCpuUtilization : null;
        double? cores = unitsPerCore is { } u ? target / u : null;

        // At least one slice per instance, and a whole number of slices per account (slice i writes to account i mod accounts).
        int accounts = (int)Math.Ceiling(target / perAccount);
        int instances = Math.Max(1, cores is { } needed ? (int)Math.Ceiling(needed / instanceCores.Value) : 1);
        int slices = RoundUp(Math.Max(Math.Max((int)Math.Ceiling(target / perSlice), instances), accounts), accounts);

        if (Beyond(accounts, targets.AccountsPerRegion, "storage accounts", "accounts per region per subscription (" + documented + ")") is { } a)
        {
            return (null, a);
        }
        if (Beyond(slices, ServiceLimits.MaxSlices, "slices", "slices one run fans out per workload") is { } s)
        {
            return (null, s);
        }
        if (Beyond(instances, targets.FlexConsumptionMaxInstances, $"Flex Consumption instances of {request.InstanceMemoryMb} MB", "instances one app scales out to (" + documented + ")") is { } i)
        {
            return (null, i);
        }

        var driverCores = unitsPerCore is { } perCore
            ? new PlanLimit("driver cores", instances * instanceCores.Value, perCore,
                $"measured: {cpu!.Value.Step.Label} ({cpu.Value.MicrosecondsPerUnit:0.#} µs of driver CPU per {unit.Per}), assumed at most {DriverCpuUtilization * 100:0}% busy")
            : null;
        return (new Sizing(perAccount, accountBasis, accounts, instances, slices, cores, driverCores), null);
    }
}

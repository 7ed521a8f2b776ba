using System.Text.RegularExpressions;

namespace StorageBench.Engine.Spec;

/// <summary>Checks a spec against service limits and driver rules before anything starts.</summary>
public static partial class RunSpecValidator
{
    [GeneratedRegex("^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")]
    private static partial Regex ScenarioPattern();

    public static IReadOnlyList<ValidationError> Validate(RunSpec spec) => Validate(spec, WrittenNumbers.None);

    /// <param name="written">The numbers as the spec wrote them: judged (and shown) in place of values held at their type's limit when read.</param>
    public static IReadOnlyList<ValidationError> Validate(RunSpec spec, WrittenNumbers written)
    {
        var errors = new SpecChecks(written);
        if (!ScenarioPattern().IsMatch(spec.Scenario ?? ""))
        {
            errors.Add(new("scenario", SpecChecks.Quote(spec.Scenario), "must be 1-63 letters, digits, '_', '-' or '.', starting with a letter or digit"));
        }
        errors.Range("startDelaySeconds", spec.StartDelaySeconds, 0, 300);
        errors.Range("maxUnstoredShare", spec.MaxUnstoredShare, 0, 1, "(a share of the planned work: 0.01 = 1%)");
        if (spec.SegmentSeconds is { } segment)
        {
            errors.Range("segmentSeconds", segment, 1, 86_400, "(the longest part of a timed slice run as one activity)");
        }
        if (spec.Client is null)
        {
            errors.Add(new("client", "null", "must be an object or omitted"));
        }
        else
        {
            errors.Range("client.maxConnectionsPerServer", spec.Client.MaxConnectionsPerServer, 1, 65_535);
            errors.Range("client.requestTimeoutSeconds", spec.Client.RequestTimeoutSeconds, 0.1, 3_600);
            errors.Range("client.primeRounds", spec.Client.PrimeRounds, 0, 100);
            if (spec.Client.Driver is not (ClientSettings.LeanDriver or ClientSettings.SdkDriver))
            {
                errors.Add(new("client.driver", SpecChecks.Quote(spec.Client.Driver), "must be \"lean\" (hand-written requests, the default) or \"sdk\" (the Azure SDK clients)"));
            }
        }
        if (spec.Placement is { } placement)
        {
            errors.Range("placement.slicesPerWorker", placement.SlicesPerWorker, 1, ServiceLimits.MaxSlices, "(slices of a step one worker runs at once)");
        }
        var sections = Workloads.WorkloadList.In(spec).ToList();
        if (sections.Count == 0)
        {
            errors.Add(new("workloads", "(none given)", $"at least one workload is required: {string.Join(", ", Workloads.WorkloadList.All.Select(w => w.Name))}"));
        }
        foreach (var (room, section) in sections)
        {
            room.Validate(section, errors);
        }
        if (errors.Count == 0)
        {
            ValidateSteps(spec, errors);
        }
        if (errors.Count == 0 && Workloads.AcceptedExecutions.Refusal(spec) is { } tooMany)
        {
            errors.Add(tooMany);
        }
        return errors;
    }

    private static void ValidateSteps(RunSpec spec, SpecChecks errors)
    {
        if (spec.Sweep is not null && spec.Saturation is not null)
        {
            errors.Add(new("sweep/saturation", "(both set)", "are exclusive: a run sweeps or searches, not both"));
            return;
        }
        if (spec.Sweep is { } sweep)
        {
            if (sweep.Values is null || sweep.Values.Length is 0 or > 100)
            {
                errors.Add(new("sweep.values", sweep.Values is null ? "null" : $"({sweep.Values.Length} values)", "must list 1 to 100 values"));
                return;
            }
            errors.AddRange(SpecVariants.Validate(spec, "sweep", sweep.Parameter ?? "", sweep.Values));
        }
        if (spec.Saturation is { } s)
        {
            errors.Range("saturation.start", s.Start, double.Epsilon, 1e9);
            errors.Range("saturation.max", s.Max, s.Start, 1e9, "(and at least start)");
            errors.Range("saturation.step", s.Step, 0, 1e9, "(0 = multiply by factor)");
            if (s.Step <= 0)
            {
                errors.Range("saturation.factor", s.Factor, 1.01, 100, "(each step must grow)");
            }
            errors.Range("saturation.maxFailedShare", s.MaxFailedShare, 0, 1);
            errors.Range("saturation.maxP99Ms", s.MaxP99Ms, 0.001, 3_600_000);
            errors.Range("saturation.minThroughputGrowth", s.MinThroughputGrowth, 0, 1);
            if (errors.Count == 0)
            {
                if (s.Values().Take(101).Count() > 100)
                {
                    errors.Add(new("saturation.max", SpecChecks.Num(s.Max), "allows more than 100 steps; raise factor or step"));
                    return;
                }
                errors.AddRange(SpecVariants.Validate(spec, "saturation", s.Parameter ?? "", s.Values()));
            }
        }
    }

}

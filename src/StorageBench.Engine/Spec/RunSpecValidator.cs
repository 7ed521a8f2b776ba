using System.Globalization;
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
        var errors = new Errors(written);
        if (!ScenarioPattern().IsMatch(spec.Scenario ?? ""))
        {
            errors.Add(new("scenario", Quote(spec.Scenario), "must be 1-63 letters, digits, '_', '-' or '.', starting with a letter or digit"));
        }
        Range(errors, "startDelaySeconds", spec.StartDelaySeconds, 0, 300);
        Range(errors, "maxUnstoredShare", spec.MaxUnstoredShare, 0, 1, "(a share of the planned work: 0.01 = 1%)");
        if (spec.Client is null)
        {
            errors.Add(new("client", "null", "must be an object or omitted"));
        }
        else
        {
            Range(errors, "client.maxConnectionsPerServer", spec.Client.MaxConnectionsPerServer, 1, 65_535);
            Range(errors, "client.requestTimeoutSeconds", spec.Client.RequestTimeoutSeconds, 0.1, 3_600);
            Range(errors, "client.primeRounds", spec.Client.PrimeRounds, 0, 100);
            if (spec.Client.Driver is not (ClientSettings.LeanDriver or ClientSettings.SdkDriver))
            {
                errors.Add(new("client.driver", Quote(spec.Client.Driver), "must be \"lean\" (hand-written requests, the default) or \"sdk\" (the Azure SDK clients)"));
            }
        }
        if (spec.TableInsert is null && spec.BlobUpload is null)
        {
            errors.Add(new("tableInsert/blobUpload", "(both missing)", "at least one workload is required"));
        }
        if (spec.TableInsert is { } t)
        {
            ValidateTable(t, errors);
        }
        if (spec.BlobUpload is { } b)
        {
            ValidateBlob(b, errors);
        }
        if (errors.Count == 0)
        {
            ValidateSteps(spec, errors);
        }
        return errors;
    }

    private static void ValidateTable(TableInsertSpec t, Errors errors)
    {
        const string p = "tableInsert.";
        int before = errors.Count;
        Range(errors, p + "entityCount", t.EntityCount, 1, 1_000_000_000);
        Range(errors, p + "entitySizeBytes", t.EntitySizeBytes, 1, ServiceLimits.MaxEntityPayloadBytes,
            $"(1 MiB entity limit less {ServiceLimits.EntityOverheadBytes} bytes for keys and property names)");
        if (Real(errors, p + "batchSize", t.BatchSize) > ServiceLimits.MaxBatchSize)
        {
            errors.Add(new(p + "batchSize", Shown(errors, p + "batchSize", t.BatchSize), $"exceeds the service limit of {ServiceLimits.MaxBatchSize} entities per transaction"));
        }
        else
        {
            Range(errors, p + "batchSize", t.BatchSize, 1, ServiceLimits.MaxBatchSize);
        }
        if (t.BatchSize is > 1 and <= ServiceLimits.MaxBatchSize && t.EntitySizeBytes > 0)
        {
            long bytes = t.BatchSize * ServiceLimits.EncodedEntityBytes(t.EntitySizeBytes);
            if (bytes > ServiceLimits.MaxTransactionPayloadBytes)
            {
                errors.Add(new(p + "batchSize", Num(t.BatchSize),
                    $"x entitySizeBytes {Num(t.EntitySizeBytes)} is about {Num(bytes)} bytes on the wire (base64), over the 4 MiB transaction limit"));
            }
        }
        Range(errors, p + "partitionCount", t.PartitionCount, 1, 100_000);
        Range(errors, p + "concurrency", t.Concurrency, 1, 1_024);
        Range(errors, p + "slices", t.Slices, 1, ServiceLimits.MaxSlices);
        Range(errors, p + "targetOperationsPerSecond", t.TargetOperationsPerSecond, 0, 1_000_000, "(0 = closed loop)");
        ValidateRunLength(t, p, errors);
        if (t.Slices > t.EntityCount && t.EntityCount >= 1)
        {
            errors.Add(new(p + "slices", Num(t.Slices), $"exceeds entityCount {Num(t.EntityCount)}: every slice needs at least one entity"));
        }
        if (errors.Count == before && t.DurationSeconds == 0)
        {
            // A fixed count: the requests each slice sends are known now. The last slice has the smallest share.
            long fewest = (t.EntityCount / t.Slices + t.BatchSize - 1) / t.BatchSize;
            string sends = $"entityCount {Num(t.EntityCount)} in batches of {Num(t.BatchSize)}{(t.Slices > 1 ? $" over {Num(t.Slices)} slices" : "")}";
            if (t.PartitionCount >= t.Slices)
            {
                // Slice i owns partitions i, i + slices, ... and sends batch b to the (b mod its partitions)-th: it fills
                // ceil((partitionCount - i) / slices) partitions only if it has that many batches.
                long most = Enumerable.Range(0, t.Slices).Min(i => (long)t.Slices * ((Planning.Planner.Share(t.EntityCount, i, t.Slices) + t.BatchSize - 1) / t.BatchSize) + i);
                if (t.PartitionCount > most)
                {
                    errors.Add(new(p + "partitionCount", Num(t.PartitionCount),
                        $"leaves partitions without a single batch: {sends} fills at most {Num(most)} partitions"));
                }
            }
            if (t.WarmupOperations >= fewest)
            {
                errors.Add(new(p + "warmupOperations", Num(t.WarmupOperations),
                    $"must be less than the {Num(fewest)} requests {(t.Slices > 1 ? "the smallest slice" : "the run")} sends ({sends}), or nothing is measured"));
            }
        }
    }

    private static void ValidateBlob(BlobUploadSpec b, Errors errors)
    {
        const string p = "blobUpload.";
        int before = errors.Count;
        Range(errors, p + "blobCount", b.BlobCount, 1, 100_000);
        if (Real(errors, p + "blockSizeBytes", b.BlockSizeBytes) > ServiceLimits.MaxBlockBytes)
        {
            errors.Add(new(p + "blockSizeBytes", Shown(errors, p + "blockSizeBytes", b.BlockSizeBytes),
                $"exceeds the service limit of 4000 MiB ({Num(ServiceLimits.MaxBlockBytes)} bytes) per block (Put Block)"));
        }
        else
        {
            Range(errors, p + "blockSizeBytes", b.BlockSizeBytes, 1, ServiceLimits.MaxDriverBlockBytes,
                "(the driver keeps one shared block buffer per slice in memory; the service allows up to 4000 MiB)");
        }
        Range(errors, p + "blobSizeBytes", b.BlobSizeBytes, 1, ServiceLimits.MaxBlocksPerBlob * ServiceLimits.MaxBlockBytes);
        if (b.BlockSizeBytes > 0 && b.BlobSizeBytes > 0)
        {
            long blocks = (b.BlobSizeBytes + b.BlockSizeBytes - 1) / b.BlockSizeBytes;
            if (blocks > ServiceLimits.MaxBlocksPerBlob)
            {
                errors.Add(new(p + "blobSizeBytes", Num(b.BlobSizeBytes),
                    $"needs {Num(blocks)} blocks of blockSizeBytes {Num(b.BlockSizeBytes)}, over the service limit of {ServiceLimits.MaxBlocksPerBlob} blocks per blob"));
            }
        }
        Range(errors, p + "parallelBlocks", b.ParallelBlocks, 1, 1_024);
        Range(errors, p + "blockRetries", b.BlockRetries, 0, 10);
        Range(errors, p + "slices", b.Slices, 1, ServiceLimits.MaxSlices);
        ValidateRunLength(b, p, errors);
        if (b.Slices > b.BlobCount && b.BlobCount >= 1)
        {
            errors.Add(new(p + "slices", Num(b.Slices), $"exceeds blobCount {Num(b.BlobCount)}: every slice needs at least one blob"));
        }
        if (errors.Count == before && b.DurationSeconds == 0)
        {
            // warmupOperations counts Put Blocks; the smallest slice has the last share of the blobs.
            long fewest = b.BlobCount / b.Slices * ((b.BlobSizeBytes + b.BlockSizeBytes - 1) / b.BlockSizeBytes);
            if (b.WarmupOperations >= fewest)
            {
                errors.Add(new(p + "warmupOperations", Num(b.WarmupOperations),
                    $"must be less than the {Num(fewest)} Put Blocks {(b.Slices > 1 ? "the smallest slice" : "the run")} sends (blobCount {Num(b.BlobCount)} of " +
                    $"{Num(b.BlobSizeBytes)} bytes in blocks of {Num(b.BlockSizeBytes)}{(b.Slices > 1 ? $" over {Num(b.Slices)} slices" : "")}), or nothing is measured"));
            }
        }
    }

    private static void ValidateSteps(RunSpec spec, Errors errors)
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
            Range(errors, "saturation.start", s.Start, double.Epsilon, 1e9);
            Range(errors, "saturation.max", s.Max, s.Start, 1e9, "(and at least start)");
            Range(errors, "saturation.step", s.Step, 0, 1e9, "(0 = multiply by factor)");
            if (s.Step <= 0)
            {
                Range(errors, "saturation.factor", s.Factor, 1.01, 100, "(each step must grow)");
            }
            Range(errors, "saturation.maxFailedShare", s.MaxFailedShare, 0, 1);
            Range(errors, "saturation.maxP99Ms", s.MaxP99Ms, 0.001, 3_600_000);
            Range(errors, "saturation.minThroughputGrowth", s.MinThroughputGrowth, 0, 1);
            if (errors.Count == 0)
            {
                if (s.Values().Take(101).Count() > 100)
                {
                    errors.Add(new("saturation.max", Num(s.Max), "allows more than 100 steps; raise factor or step"));
                    return;
                }
                errors.AddRange(SpecVariants.Validate(spec, "saturation", s.Parameter ?? "", s.Values()));
            }
        }
    }

    private static void ValidateRunLength(WorkloadSpec w, string p, Errors errors)
    {
        Range(errors, p + "durationSeconds", w.DurationSeconds, 0, 86_400, "(0 = run the fixed count)");
        Range(errors, p + "warmupSeconds", w.WarmupSeconds, 0, 3_600);
        Range(errors, p + "warmupOperations", w.WarmupOperations, 0, 1_000_000_000);
        if (w.DurationSeconds > 0 && w.WarmupSeconds >= w.DurationSeconds)
        {
            errors.Add(new(p + "warmupSeconds", Num(w.WarmupSeconds), $"must be shorter than durationSeconds {Num(w.DurationSeconds)}, or nothing is measured"));
        }
    }

    private static void Range(Errors errors, string field, double value, double min, double max, string why = "")
    {
        double v = Real(errors, field, value);
        if (double.IsNaN(v) || v < min || v > max)
        {
            errors.Add(new(field, Shown(errors, field, value), $"must be between {Num(min)} and {Num(max)}{(why.Length > 0 ? " " + why : "")}"));
        }
    }

    /// <summary>The field's number as written (a value beyond its type's range is held at the limit when read).</summary>
    private static double Real(Errors errors, string field, double read) => errors.Written.Differing(field, read)?.Value ?? read;

    private static string Shown(Errors errors, string field, double read) => errors.Written.Differing(field, read)?.Text ?? Num(read);

    /// <summary>The errors found so far, and the numbers as the spec wrote them.</summary>
    private sealed class Errors(WrittenNumbers written) : List<ValidationError>
    {
        public WrittenNumbers Written => written;
    }

    private static string Num(double v) => v.ToString(v == Math.Floor(v) && Math.Abs(v) < 1e15 ? "0" : "G6", CultureInfo.InvariantCulture);

    private static string Quote(string? s) => s is null ? "null" : "\"" + s + "\"";
}

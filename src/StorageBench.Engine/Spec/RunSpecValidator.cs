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

    private static void ValidateTable(TableInsertSpec t, SpecChecks errors)
    {
        const string p = "tableInsert.";
        int before = errors.Count;
        errors.Range(p + "entityCount", t.EntityCount, 1, 1_000_000_000);
        errors.Range(p + "entitySizeBytes", t.EntitySizeBytes, 1, ServiceLimits.MaxEntityPayloadBytes,
            $"(1 MiB entity limit less {ServiceLimits.EntityOverheadBytes} bytes for keys and property names)");
        if (errors.Real(p + "batchSize", t.BatchSize) > ServiceLimits.MaxBatchSize)
        {
            errors.Add(new(p + "batchSize", errors.Shown(p + "batchSize", t.BatchSize), $"exceeds the service limit of {ServiceLimits.MaxBatchSize} entities per transaction"));
        }
        else
        {
            errors.Range(p + "batchSize", t.BatchSize, 1, ServiceLimits.MaxBatchSize);
        }
        if (t.BatchSize is > 1 and <= ServiceLimits.MaxBatchSize && t.EntitySizeBytes > 0)
        {
            long bytes = t.BatchSize * ServiceLimits.EncodedEntityBytes(t.EntitySizeBytes);
            if (bytes > ServiceLimits.MaxTransactionPayloadBytes)
            {
                errors.Add(new(p + "batchSize", SpecChecks.Num(t.BatchSize),
                    $"x entitySizeBytes {SpecChecks.Num(t.EntitySizeBytes)} is about {SpecChecks.Num(bytes)} bytes on the wire (base64), over the 4 MiB transaction limit"));
            }
        }
        errors.Range(p + "partitionCount", t.PartitionCount, 1, 100_000);
        errors.Range(p + "concurrency", t.Concurrency, 1, 1_024);
        errors.Range(p + "slices", t.Slices, 1, ServiceLimits.MaxSlices);
        errors.Range(p + "targetOperationsPerSecond", t.TargetOperationsPerSecond, 0, 1_000_000, "(0 = closed loop)");
        errors.RunLength(t, p);
        if (t.Slices > t.EntityCount && t.EntityCount >= 1)
        {
            errors.Add(new(p + "slices", SpecChecks.Num(t.Slices), $"exceeds entityCount {SpecChecks.Num(t.EntityCount)}: every slice needs at least one entity"));
        }
        if (errors.Count == before && t.DurationSeconds == 0)
        {
            // A fixed count: the requests each slice sends are known now. The last slice has the smallest share.
            long fewest = (t.EntityCount / t.Slices + t.BatchSize - 1) / t.BatchSize;
            string sends = $"entityCount {SpecChecks.Num(t.EntityCount)} in batches of {SpecChecks.Num(t.BatchSize)}{(t.Slices > 1 ? $" over {SpecChecks.Num(t.Slices)} slices" : "")}";
            if (t.PartitionCount >= t.Slices)
            {
                // Slice i owns partitions i, i + slices, ... and sends batch b to the (b mod its partitions)-th: it fills
                // ceil((partitionCount - i) / slices) partitions only if it has that many batches.
                long most = Enumerable.Range(0, t.Slices).Min(i => (long)t.Slices * ((Planning.Planner.Share(t.EntityCount, i, t.Slices) + t.BatchSize - 1) / t.BatchSize) + i);
                if (t.PartitionCount > most)
                {
                    errors.Add(new(p + "partitionCount", SpecChecks.Num(t.PartitionCount),
                        $"leaves partitions without a single batch: {sends} fills at most {SpecChecks.Num(most)} partitions"));
                }
            }
            if (t.WarmupOperations >= fewest)
            {
                errors.Add(new(p + "warmupOperations", SpecChecks.Num(t.WarmupOperations),
                    $"must be less than the {SpecChecks.Num(fewest)} requests {(t.Slices > 1 ? "the smallest slice" : "the run")} sends ({sends}), or nothing is measured"));
            }
        }
    }

    private static void ValidateBlob(BlobUploadSpec b, SpecChecks errors)
    {
        const string p = "blobUpload.";
        int before = errors.Count;
        errors.Range(p + "blobCount", b.BlobCount, 1, 100_000);
        if (errors.Real(p + "blockSizeBytes", b.BlockSizeBytes) > ServiceLimits.MaxBlockBytes)
        {
            errors.Add(new(p + "blockSizeBytes", errors.Shown(p + "blockSizeBytes", b.BlockSizeBytes),
                $"exceeds the service limit of 4000 MiB ({SpecChecks.Num(ServiceLimits.MaxBlockBytes)} bytes) per block (Put Block)"));
        }
        else
        {
            errors.Range(p + "blockSizeBytes", b.BlockSizeBytes, 1, ServiceLimits.MaxDriverBlockBytes,
                "(the driver keeps one shared block buffer per slice in memory; the service allows up to 4000 MiB)");
        }
        errors.Range(p + "blobSizeBytes", b.BlobSizeBytes, 1, ServiceLimits.MaxBlocksPerBlob * ServiceLimits.MaxBlockBytes);
        if (b.BlockSizeBytes > 0 && b.BlobSizeBytes > 0)
        {
            long blocks = (b.BlobSizeBytes + b.BlockSizeBytes - 1) / b.BlockSizeBytes;
            if (blocks > ServiceLimits.MaxBlocksPerBlob)
            {
                errors.Add(new(p + "blobSizeBytes", SpecChecks.Num(b.BlobSizeBytes),
                    $"needs {SpecChecks.Num(blocks)} blocks of blockSizeBytes {SpecChecks.Num(b.BlockSizeBytes)}, over the service limit of {ServiceLimits.MaxBlocksPerBlob} blocks per blob"));
            }
        }
        errors.Range(p + "parallelBlocks", b.ParallelBlocks, 1, 1_024);
        errors.Range(p + "blockRetries", b.BlockRetries, 0, 10);
        errors.Range(p + "slices", b.Slices, 1, ServiceLimits.MaxSlices);
        errors.RunLength(b, p);
        if (b.Slices > b.BlobCount && b.BlobCount >= 1)
        {
            errors.Add(new(p + "slices", SpecChecks.Num(b.Slices), $"exceeds blobCount {SpecChecks.Num(b.BlobCount)}: every slice needs at least one blob"));
        }
        if (errors.Count == before && b.DurationSeconds == 0)
        {
            // warmupOperations counts Put Blocks; the smallest slice has the last share of the blobs.
            long fewest = b.BlobCount / b.Slices * ((b.BlobSizeBytes + b.BlockSizeBytes - 1) / b.BlockSizeBytes);
            if (b.WarmupOperations >= fewest)
            {
                errors.Add(new(p + "warmupOperations", SpecChecks.Num(b.WarmupOperations),
                    $"must be less than the {SpecChecks.Num(fewest)} Put Blocks {(b.Slices > 1 ? "the smallest slice" : "the run")} sends (blobCount {SpecChecks.Num(b.BlobCount)} of " +
                    $"{SpecChecks.Num(b.BlobSizeBytes)} bytes in blocks of {SpecChecks.Num(b.BlockSizeBytes)}{(b.Slices > 1 ? $" over {SpecChecks.Num(b.Slices)} slices" : "")}), or nothing is measured"));
            }
        }
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

namespace StorageBench.Engine.Measurement;

/// <summary>
/// A slice run as segments, put together into one slice result as exactly as slices are: counts and units add, histograms
/// add bucket by bucket, timelines add second by second (widening their buckets to stay within their budget).
/// </summary>
public static class SegmentMerge
{
    /// <summary>The slice so far (null before its first segment) with segment <paramref name="index"/> of <paramref name="count"/> added.</summary>
    public static SliceResult Add(SliceResult? soFar, SliceResult next, int index, int count)
    {
        var drift = Tenths(soFar?.Drift, next, index, count);
        if (soFar is null)
        {
            return next with { SegmentAttempts = [next.AttemptId], SegmentContentMd5 = next.ContentMd5 is { } content ? [content] : null, Drift = drift };
        }
        return soFar with
        {
            // Where it ran last and how it ended; its start, start lag, content and whether it re-ran (started late) stay the first
            // segment's: a later segment run again is a pause, which its note names.
            Host = next.Host, ProcessId = next.ProcessId, Worker = next.Worker, EndedUtc = next.EndedUtc,
            Canceled = next.Canceled, StopReason = next.StopReason ?? soFar.StopReason, Continuation = next.Continuation,
            Notes = [.. soFar.Notes.Concat(next.Notes).Distinct(StringComparer.Ordinal)],
            Counts = OutcomeCounts.Sum([soFar.Counts, next.Counts]),
            Units = soFar.Units + next.Units,
            WarmupOperations = soFar.WarmupOperations + next.WarmupOperations,
            WarmupUnits = soFar.WarmupUnits + next.WarmupUnits,
            Objects = soFar.Objects + next.Objects,
            CommittedUnits = soFar.CommittedUnits + next.CommittedUnits,
            Planned = soFar.Planned + next.Planned,
            UnitsAttempted = soFar.UnitsAttempted + next.UnitsAttempted,
            ObjectsFailed = soFar.ObjectsFailed + next.ObjectsFailed,
            FailedObjectUnits = soFar.FailedObjectUnits + next.FailedObjectUnits,
            DroppedOperations = soFar.DroppedOperations + next.DroppedOperations,
            PausedSeconds = soFar.PausedSeconds + next.PausedSeconds,
            Mismatches = soFar.Mismatches + next.Mismatches,
            MatchedReads = soFar.MatchedReads + next.MatchedReads,
            WrongDownloads = soFar.WrongDownloads + next.WrongDownloads,
            LatencyHistogram = Histograms(soFar.LatencyHistogram, next.LatencyHistogram)!,
            ServiceTimeHistogram = Histograms(soFar.ServiceTimeHistogram, next.ServiceTimeHistogram),
            LagHistogram = Histograms(soFar.LagHistogram, next.LagHistogram),
            FirstByteHistogram = Histograms(soFar.FirstByteHistogram, next.FirstByteHistogram),
            Timeline = Timeline.Merge([soFar.Timeline, next.Timeline]).Fit(SliceResult.MaxTimelineBuckets),
            // CPU is what each segment's process spent on it, added.
            ProcessCpuSecondsAtEnd = soFar.ProcessCpuSecondsAtEnd + (next.ProcessCpuSecondsAtEnd - next.ProcessCpuSecondsAtStart),
            Requests = soFar.Requests.Plus(next.Requests),
            SegmentAttempts = [.. soFar.SegmentAttempts ?? [], next.AttemptId],
            SegmentContentMd5 = soFar.SegmentContentMd5 is { } md5s && next.ContentMd5 is { } md5 ? [.. md5s, md5] : null,
            Drift = drift,
        };
    }

    /// <summary>Segments in a tenth of <paramref name="count"/> (drift is a figure from ten segments on).</summary>
    public static int Tenth(int count) => count / 10;

    /// <summary>The first and last tenth's latency with this segment's added where it falls; null under ten segments.</summary>
    private static SegmentDrift? Tenths(SegmentDrift? soFar, SliceResult next, int index, int count)
    {
        int tenth = Tenth(count);
        if (tenth == 0)
        {
            return null;
        }
        string empty = LatencyHistograms.Encode(LatencyHistograms.Create());
        var drift = soFar ?? new SegmentDrift(empty, empty, next.StartedUtc, next.EndedUtc, default, default);
        if (index < tenth)
        {
            drift = drift with { FirstTenth = Histograms(drift.FirstTenth, next.LatencyHistogram)!, FirstToUtc = next.EndedUtc };
        }
        if (index >= count - tenth)
        {
            drift = drift with
            {
                LastTenth = Histograms(drift.LastTenth, next.LatencyHistogram)!,
                LastFromUtc = index == count - tenth ? next.StartedUtc : drift.LastFromUtc, LastToUtc = next.EndedUtc,
            };
        }
        return drift;
    }

    /// <summary>At a result's compression level: the merged figures cross the orchestration boundary as one execution's do.</summary>
    private static string? Histograms(string? a, string? b) =>
        a is null ? b : b is null ? a : LatencyHistograms.EncodeAndReturnToPool(MergedInto(LatencyHistograms.Pool.Get(), a, b), LatencyHistograms.Compact);

    private static LatencyHistogram MergedInto(LatencyHistogram target, string a, string b)
    {
        LatencyHistograms.AddTo(target, a);
        LatencyHistograms.AddTo(target, b);
        return target;
    }
}

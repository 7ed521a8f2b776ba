using System.Globalization;
using Azure;

namespace StorageBench.Engine.Workloads;

/// <summary>One wait chosen before a blob request was sent again.</summary>
/// <param name="ServerDelay">What the service asked for (Retry-After, retry-after-ms or x-ms-retry-after-ms), if it did.</param>
public sealed record ChosenRetryDelay(int Retry, TimeSpan Wait, TimeSpan? ServerDelay);

/// <summary>
/// The wait before a throttled or transiently failed Put Block or Put Block List is sent again, as a real storage
/// client chooses it: never sooner than the service asked (its retry-after headers, as Azure.Core reads them), else
/// 100 ms doubling to at most 3.2 s; and jittered (×0.8–1.2 around the back-off, ×1.0–1.2 above the service's ask),
/// so the block loops of every slice do not all come back at the same instant after a throttling burst and amplify
/// the throttling being measured. Thread-safe; one per slice. Keeps the first <see cref="Kept"/> waits it chose.
/// </summary>
public sealed class BlockRetryDelays(Random? random = null)
{
    /// <summary>The longest server-asked wait honoured: a larger header is taken as this, so a slice cannot sleep for hours.</summary>
    public static readonly TimeSpan MaxServerDelay = TimeSpan.FromSeconds(60);

    public const int Kept = 256;

    private readonly Random _random = random ?? Random.Shared;
    private readonly List<ChosenRetryDelay> _chosen = [];
    private long _count;

    /// <summary>How many waits were chosen (every retry of the slice).</summary>
    public long Count => Interlocked.Read(ref _count);

    /// <summary>The first <see cref="Kept"/> waits chosen, in order.</summary>
    public IReadOnlyList<ChosenRetryDelay> Chosen
    {
        get
        {
            lock (_chosen)
            {
                return [.. _chosen];
            }
        }
    }

    /// <summary>The exponential back-off before retry <paramref name="retry"/> (from 1), without jitter: 100 ms, doubling, at most 3.2 s.</summary>
    public static TimeSpan BackOff(int retry) => TimeSpan.FromMilliseconds(100 * (1 << Math.Clamp(retry - 1, 0, 5)));

    /// <summary>The wait before retry <paramref name="retry"/> (from 1) of a request that failed with <paramref name="failure"/>.</summary>
    public ChosenRetryDelay Next(int retry, Exception? failure)
    {
        var server = ServerDelay(failure);
        double jittered = BackOff(retry).TotalMilliseconds * (0.8 + 0.4 * Sample());
        double wait = server is { } asked ? Math.Max(asked.TotalMilliseconds * (1 + 0.2 * Sample()), jittered) : jittered;
        var chosen = new ChosenRetryDelay(retry, TimeSpan.FromMilliseconds(wait), server);
        Interlocked.Increment(ref _count);
        lock (_chosen)
        {
            if (_chosen.Count < Kept)
            {
                _chosen.Add(chosen);
            }
        }
        return chosen;
    }

    private double Sample()
    {
        lock (_random)
        {
            return _random.NextDouble();
        }
    }

    /// <summary>Where a lean-driver failure carries the service's retry-after (it has no Azure.Core response to read it from).</summary>
    public const string ServerDelayKey = "StorageBench.ServerRetryDelay";

    /// <summary>
    /// The wait the service asked for in its answer: retry-after-ms or x-ms-retry-after-ms (milliseconds), else Retry-After
    /// (seconds or an HTTP date); capped at <see cref="MaxServerDelay"/>. Null when it asked for none.
    /// </summary>
    public static TimeSpan? ServerDelay(Exception? failure)
    {
        TimeSpan? asked = failure switch
        {
            { } ex when ex.Data[ServerDelayKey] is TimeSpan carried => carried,
            RequestFailedException r when r.GetRawResponse() is { } response => FromHeaders(name => response.Headers.TryGetValue(name, out var v) ? v : null),
            AggregateException { InnerExceptions.Count: > 0 } agg => ServerDelay(agg.InnerExceptions[^1]),
            _ => null,
        };
        return asked is { } d ? TimeSpan.FromTicks(Math.Clamp(d.Ticks, 0, MaxServerDelay.Ticks)) : null;
    }

    /// <summary>The same headers, in the order Azure.Core reads them.</summary>
    public static TimeSpan? FromHeaders(Func<string, string?> header)
    {
        foreach (string name in new[] { "retry-after-ms", "x-ms-retry-after-ms" })
        {
            if (double.TryParse(header(name), NumberStyles.Float, CultureInfo.InvariantCulture, out double ms))
            {
                return TimeSpan.FromMilliseconds(ms);
            }
        }
        string? after = header("Retry-After");
        if (int.TryParse(after, NumberStyles.Integer, CultureInfo.InvariantCulture, out int seconds))
        {
            return TimeSpan.FromSeconds(seconds);
        }
        return DateTimeOffset.TryParse(after, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var at) ? at - DateTimeOffset.UtcNow : null;
    }
}

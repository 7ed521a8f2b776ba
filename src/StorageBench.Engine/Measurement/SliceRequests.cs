namespace StorageBench.Engine.Measurement;

/// <summary>
/// The requests a slice sent besides what <see cref="SliceResult.Counts"/> holds, for the cost estimate:
/// its priming before the start instant, its Put Block Lists (blob), and every request its storage
/// clients put on the wire (SDK retries included). Plain counts, merged like the rest of the slice.
/// </summary>
public sealed record SliceRequests
{
    /// <summary>Every HTTP request the slice's storage clients sent, each SDK retry too, counted by <see cref="WireCounter"/>.</summary>
    public long Wire { get; init; }

    /// <summary>Priming: table transactions (a batch inserted, then deleted), or Put Blocks and Put Block Lists.</summary>
    public long PrimingWrites { get; init; }

    /// <summary>Table: entities in those priming transactions (what a per-entity billing of batches would count).</summary>
    public long PrimingEntities { get; init; }

    /// <summary>The slice's one probe before priming: a 1-entity transaction or point read (table), Get Container Properties (blob).</summary>
    public long PrimingProbes { get; init; }

    /// <summary>Blob: Delete Blob of the primer's blob, one per primed loop.</summary>
    public long PrimingDeletes { get; init; }

    /// <summary>Every priming request (probe included), and of them those the service throttled and those that failed in any way (throttled included; a 404 is an answer).</summary>
    public long PrimingRequests { get; init; }
    public long PrimingThrottled { get; init; }
    public long PrimingFailed { get; init; }

    /// <summary>Blob: Put Block List requests (page blob: the Put Blobs that create its blobs), warm-up and retries included: counted, not timed.</summary>
    public long BlockLists { get; init; }

    /// <summary>Blob: of the measured window's Put Block Lists (page blob: creates), those that did not succeed.</summary>
    public long BlockListsFailed { get; init; }

    /// <summary>Reading workloads: priming reads before the start instant (point reads or query pages; Get Blobs of a small range), probe excluded.</summary>
    public long PrimingReads { get; init; }

    /// <summary>Both counts added: a slice's segments, put together.</summary>
    public SliceRequests Plus(SliceRequests o) => new()
    {
        Wire = Wire + o.Wire,
        PrimingWrites = PrimingWrites + o.PrimingWrites,
        PrimingEntities = PrimingEntities + o.PrimingEntities,
        PrimingProbes = PrimingProbes + o.PrimingProbes,
        PrimingDeletes = PrimingDeletes + o.PrimingDeletes,
        PrimingRequests = PrimingRequests + o.PrimingRequests,
        PrimingThrottled = PrimingThrottled + o.PrimingThrottled,
        PrimingFailed = PrimingFailed + o.PrimingFailed,
        BlockLists = BlockLists + o.BlockLists,
        BlockListsFailed = BlockListsFailed + o.BlockListsFailed,
        PrimingReads = PrimingReads + o.PrimingReads,
    };
}

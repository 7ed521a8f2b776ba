namespace StorageBench.Engine.Workloads;

/// <summary>Every workload's room, in the order a step runs them: a new workload is one more entry here and a section in <see cref="RunSpec"/>.</summary>
public static class WorkloadList
{
    public static IReadOnlyList<Workload> All { get; } =
        [
            TableInsert.TableInsertRoom.Instance, BlobUpload.BlobUploadRoom.Instance, PageBlobUpload.PageBlobUploadRoom.Instance, TableRead.TableReadRoom.Instance,
            BlobDownload.BlobDownloadRoom.Instance, AppendBlobUpload.AppendBlobUploadRoom.Instance,
        ];

    /// <summary>The room of this name; null for a name no workload has (a row or event from elsewhere).</summary>
    public static Workload? Find(string? name) => All.FirstOrDefault(w => w.Name == name);

    /// <summary>The room of this name, which must be one.</summary>
    public static Workload Of(string name) => Find(name) ?? throw new ArgumentException($"\"{name}\" is no workload: {string.Join(", ", All.Select(w => w.Name))}", nameof(name));

    /// <summary>The spec's workloads with their sections, in the order a step runs them.</summary>
    public static IEnumerable<(Workload Room, WorkloadSpec Section)> In(RunSpec spec) =>
        All.Select(w => (w, w.SectionOf(spec))).Where(p => p.Item2 is not null).Select(p => (p.w, p.Item2!));
}

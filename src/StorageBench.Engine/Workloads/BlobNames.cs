namespace StorageBench.Engine.Workloads;

/// <summary>How every blob room names what it writes, so verification and cleanup tell each execution's blobs apart.</summary>
public static class BlobNames
{
    /// <summary>"attempt/sSSS-NNNNNNN": slices never collide, and each execution's blobs are its own.</summary>
    public static string Of(string attempt, int slice, int sequence) => $"{attempt}/s{slice:D3}-{sequence:D7}";

    /// <summary>The attempt id a blob name starts with ("" for a name this tool did not write).</summary>
    public static string AttemptOf(string blobName) => blobName.Length > 9 && blobName[8] == '/' ? blobName[..8] : "";
}

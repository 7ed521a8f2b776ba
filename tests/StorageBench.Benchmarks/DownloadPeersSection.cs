using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Azure.Storage;
using Azure.Storage.Blobs;
using Azure.Storage.Sas;
using StorageBench.Cli;
using StorageBench.Engine.Spec;
using StorageBench.TaskHub;

namespace StorageBench.Benchmarks;

/// <summary>
/// Section 5f of BENCHMARKS.md: storagebench's blob download (lean and SDK drivers) beside AzCopy's, on one Azurite:
/// one 256 MiB blob in 4 MiB ranges, the senders alternated, goodput and CPU per MB of each whole process as 5d measures them.
/// </summary>
public static partial class DownloadPeersSection
{
    private const long BlobBytes = 256L << 20;
    private const int RangeBytes = 4 << 20;
    private const int Rounds = 3;
    private const string AzCopy = "azcopy";
    private const string AzCopy8 = "azcopy, 8 in flight";
    private const string JsSdk = "js-sdk";
    private const string BlobName = "download.bin";
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    private sealed record Download(double MBPerSecond, double CpuMicrosPerMB, double SystemMicrosPerMB, double? WindowMBPerSecond, double? WindowCpuMicrosPerMB, double Load);

    /// <param name="jsPeer">The folder of js-peer/download.js with its npm packages installed (STORAGEBENCH_JS_PEER); null leaves the JS SDK out.</param>
    public static async Task<string> WriteAsync(string cliDll, string azcopy, string? jsPeer = null)
    {
        string work = Path.Combine(Path.GetTempPath(), "bench-downloads-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(work);
        await using var azurite = await AzuriteServer.StartAsync();
        var service = new BlobServiceClient(azurite.ConnectionString);
        var container = service.GetBlobContainerClient("peers");
        await container.CreateIfNotExistsAsync();
        {
            // AzCopy's blob, seeded once: random bytes, in 4 MiB blocks.
            string file = Path.Combine(work, "blob.bin");
            byte[] chunk = new byte[RangeBytes];
            await using (var output = File.Create(file))
            {
                for (long written = 0; written < BlobBytes; written += chunk.Length)
                {
                    Random.Shared.NextBytes(chunk);
                    await output.WriteAsync(chunk);
                }
            }
            await container.GetBlobClient(BlobName).UploadAsync(file, new Azure.Storage.Blobs.Models.BlobUploadOptions
            {
                TransferOptions = new() { InitialTransferSize = RangeBytes, MaximumTransferSize = RangeBytes, MaximumConcurrency = 8 },
            });
            File.Delete(file);
        }
        var sas = new BlobSasBuilder(BlobContainerSasPermissions.Read, DateTimeOffset.UtcNow.AddHours(2)) { BlobContainerName = container.Name }
            .ToSasQueryParameters(new StorageSharedKeyCredential(azurite.Account, azurite.Key)).ToString();

        string[] senders = [AzCopy, AzCopy8, .. jsPeer is null ? Array.Empty<string>() : [JsSdk], ClientSettings.LeanDriver, ClientSettings.SdkDriver];
        var runs = senders.ToDictionary(s => s, _ => new List<Download?>());
        var failures = new List<string>();
        for (int round = 0; round < Rounds; round++)
        {
            foreach (string sender in senders)
            {
                try
                {
                    runs[sender].Add(sender switch
                    {
                        AzCopy or AzCopy8 => await AzCopyAsync(azcopy, $"{container.Uri}/{BlobName}?{sas}", work, sender == AzCopy8 ? 8 : null),
                        JsSdk => await JsSdkAsync(jsPeer!, azurite.ConnectionString, container.Name),
                        _ => await StorageBenchAsync(cliDll, azurite.ConnectionString, sender, work),
                    });
                }
                catch (InvalidOperationException ex)
                {
                    runs[sender].Add(null);
                    failures.Add($"{sender}, round {round + 1}: {ex.Message.Split('\n')[0]}");
                }
                Console.WriteLine($"download peers {sender} round {round}: {runs[sender][^1]}");
                // A storagebench run's own container (its seeded blob) goes before the next run; AzCopy's blob and the task hub stay.
                await foreach (var item in service.GetBlobContainersAsync())
                {
                    if (item.Name != container.Name && !item.Name.StartsWith(TaskHubSettings.DefaultHubName.ToLowerInvariant() + "-", StringComparison.Ordinal))
                    {
                        await service.DeleteBlobContainerAsync(item.Name);
                    }
                }
            }
        }
        Directory.Delete(work, recursive: true);

        var md = new StringBuilder();
        md.AppendLine("### 5f. Blob downloads beside AzCopy and the JS SDK (Azurite)");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"One {BlobBytes >> 20} MiB blob downloaded from one Azurite (in-memory, loopback, its own process) in {RangeBytes >> 20} MiB ranges, by AzCopy {BlobPeersSection.AzCopyVersion(azcopy)} (npm `@azure-tools/azcopy-linux`, pinned) by the JS SDK, and by `storagebench run` with a blobDownload spec on the lean and the SDK driver; they alternate (AzCopy, AzCopy with 8 in flight, the JS SDK when installed, lean, SDK) for {Rounds} rounds. ") +
            "AzCopy runs `azcopy copy \"http://127.0.0.1:PORT/devstoreaccount1/peers/download.bin?SAS\" /dev/null --from-to BlobLocal --block-size-mb 4 --log-level ERROR --skip-version-check` at its own concurrency, and again with `AZCOPY_CONCURRENCY_VALUE=8`; " +
            "its destination is /dev/null (AzCopy's own advice for measuring downloads: no disk write in its CPU or time, as storagebench writes none), and a run counts only when AzCopy reports every byte transferred. The blob it reads is seeded once, before the runs. " +
            "The JS SDK peer (`tests/StorageBench.Benchmarks/js-peer/download.js`, `@azure/storage-blob` pinned in its own package.json) reads the same blob in the same 4 MiB ranges with 8 in flight, each body read to its end and dropped; its bracketed figure is its own window (first range request to last byte). " +
            "A storagebench run (same Azurite, `--connection-string`; one slice, `rangeSizeBytes` 4 MiB, `parallelRanges` 8, `downloadCount` 1, `primeRounds` 2 (the default: a few 4 KiB ranges), start delay 1 s) seeds its own copy of the blob first (one Put Blob of 256 MiB, outside its measured window) and counts only when its verification matched. " +
            "**Goodput** is the blob's MB over the process's whole life; **CPU per MB** is the process's user + system CPU over its whole life (bash's `times`), per MB downloaded — for storagebench that life includes seeding its blob (uploading the 256 MiB it then downloads) besides start-up, priming and verification, so its whole-life figures carry an upload AzCopy's do not. " +
            "storagebench's own figures over its measured window (the download alone, what its summary reports) are in brackets: those are the ones to hold beside AzCopy's per-MB cost.");
        md.AppendLine();
        md.AppendLine("| sender | goodput | CPU per MB (of it kernel) | storagebench's window: goodput, CPU per MB | load average (1 min) during the runs |");
        md.AppendLine("|---|---:|---:|---:|---:|");
        foreach (string sender in senders)
        {
            var ok = runs[sender].Where(u => u is not null).Select(u => u!).ToList();
            string Cell(Func<Download, double> pick, string format) => ok.Count == 0 ? "failed" :
                $"{ok.Average(pick).ToString(format, Inv)} ({string.Join(", ", runs[sender].Select(u => u is null ? "failed" : pick(u).ToString(format, Inv)))})";
            string name = sender switch
            {
                AzCopy => "AzCopy", AzCopy8 => "AzCopy, `AZCOPY_CONCURRENCY_VALUE=8`", JsSdk => "JS SDK (`@azure/storage-blob`), 8 ranges in flight", _ => $"storagebench, {sender}",
            };
            string window = sender is AzCopy or AzCopy8 || ok.Count == 0 ? "" : sender == JsSdk ? $"[{Cell(u => u.WindowMBPerSecond ?? 0, "0.0")} MB/s]" :
                $"[{Cell(u => u.WindowMBPerSecond ?? 0, "0.0")} MB/s, {Cell(u => u.WindowCpuMicrosPerMB ?? 0, "0")} µs/MB]";
            md.AppendLine(Inv, $"| {name} | {Cell(u => u.MBPerSecond, "0.0")} MB/s | {Cell(u => u.CpuMicrosPerMB, "0")} µs/MB ({(ok.Count == 0 ? "" : ok.Average(u => u.SystemMicrosPerMB).ToString("0", Inv))}) | {window} | " +
                $"{(ok.Count == 0 ? "" : ok.Average(u => u.Load).ToString("0.0", Inv))} ({string.Join(", ", ok.Select(u => u.Load.ToString("0.0", Inv)))}) |");
        }
        if (failures.Count > 0)
        {
            md.AppendLine();
            md.AppendLine("Runs that failed (left out of the means): " + string.Join("; ", failures));
        }
        return md.ToString();
    }

    private static async Task<Download> AzCopyAsync(string azcopy, string source, string work, int? inFlight)
    {
        var env = new Dictionary<string, string>
        {
            ["AZCOPY_LOG_LOCATION"] = Path.Combine(work, "azcopy-logs"),
            ["AZCOPY_JOB_PLAN_LOCATION"] = Path.Combine(work, "azcopy-plans"),
        };
        if (inFlight is { } n)
        {
            env["AZCOPY_CONCURRENCY_VALUE"] = n.ToString(Inv);
        }
        var (wall, user, system, load, output) = await BlobPeersSection.TimedWithOutputAsync(env, azcopy, "copy", source, "/dev/null", "--from-to", "BlobLocal",
            "--block-size-mb", "4", "--log-level", "ERROR", "--skip-version-check");
        var transferred = BytesTransferred().Match(output);
        if (!transferred.Success || long.Parse(transferred.Groups[1].Value, Inv) != BlobBytes)
        {
            throw new InvalidOperationException($"AzCopy did not report {BlobBytes} bytes transferred: {output.Trim().Split('\n').LastOrDefault()}");
        }
        double mb = BlobBytes / 1e6;
        return new(mb / wall, (user + system) * 1e6 / mb, system * 1e6 / mb, null, null, load);
    }

    /// <summary>
    /// The JS SDK peer (js-peer/download.js): the same blob in the same 4 MiB ranges, 8 in flight, each body read to its end;
    /// its window is its downloads alone (first request to last byte), its CPU the whole node process's.
    /// </summary>
    private static async Task<Download> JsSdkAsync(string jsPeer, string connection, string container)
    {
        var env = new Dictionary<string, string> { ["PEER_CONNECTION_STRING"] = connection };
        var (wall, user, system, load, output) = await BlobPeersSection.TimedWithOutputAsync(env, "node", Path.Combine(jsPeer, "download.js"), container,
            RangeBytes.ToString(Inv), "8", BlobName);
        using var json = JsonDocument.Parse(output.Trim().Split('\n')[^1]);
        long bytes = json.RootElement.GetProperty("bytes").GetInt64();
        if (bytes != BlobBytes)
        {
            throw new InvalidOperationException($"the JS SDK peer read {bytes} bytes, not {BlobBytes}");
        }
        double mb = BlobBytes / 1e6;
        return new(mb / wall, (user + system) * 1e6 / mb, system * 1e6 / mb, mb / json.RootElement.GetProperty("seconds").GetDouble(), null, load);
    }

    [GeneratedRegex(@"Total Number of Bytes Transferred: (\d+)")]
    private static partial Regex BytesTransferred();

    private static async Task<Download> StorageBenchAsync(string cliDll, string connection, string driver, string work)
    {
        string dir = Path.Combine(work, "run-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(new RunSpec
        {
            Scenario = "bench-download-peers",
            StartDelaySeconds = 1,
            Client = new ClientSettings { Driver = driver },
            BlobDownload = new BlobDownloadSpec { BlobCount = 1, BlobSizeBytes = BlobBytes, RangeSizeBytes = RangeBytes, ParallelRanges = 8, DownloadCount = 1, Slices = 1 },
        }, RunSpecParser.Options));
        var (wall, user, system, load, _) = await BlobPeersSection.TimedWithOutputAsync([], "dotnet", cliDll, "run", "--spec", specFile, "--connection-string", connection, "--out", dir);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));
        var w = json.RootElement.GetProperty("workloads")[0];
        if (!w.GetProperty("verified").GetProperty("matched").GetBoolean())
        {
            throw new InvalidOperationException("storagebench's verification did not match");
        }
        double mb = BlobBytes / 1e6;
        return new(mb / wall, (user + system) * 1e6 / mb, system * 1e6 / mb,
            w.GetProperty("throughput").GetProperty("megabytesPerSecond").GetDouble(), w.GetProperty("clientCpuMicrosecondsPerMegabyte").GetDouble(), load);
    }
}

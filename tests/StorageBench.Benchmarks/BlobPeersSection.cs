using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Azure.Storage;
using Azure.Storage.Blobs;
using Azure.Storage.Sas;
using StorageBench.Cli;
using StorageBench.Engine.Spec;
using StorageBench.TaskHub;

namespace StorageBench.Benchmarks;

/// <summary>
/// Section 5d of BENCHMARKS.md: storagebench's blob upload (lean and SDK drivers) beside AzCopy, the tool
/// people upload with, on one Azurite: the same blob size and block size, the three alternated in one run,
/// goodput of the committed blob and CPU per MB of each process.
/// </summary>
public static class BlobPeersSection
{
    private const long BlobBytes = 256L << 20;
    private const int BlockBytes = 4 << 20;
    private const int Rounds = 3;
    private const string AzCopy = "azcopy";
    private const string AzCopy8 = "azcopy, 8 in flight";
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>One upload: goodput (MB/s of the committed blob over the process's life), CPU per MB of the whole process, and storagebench's own in-window figures.</summary>
    private sealed record Upload(double MBPerSecond, double CpuMicrosPerMB, double SystemMicrosPerMB, double? WindowMBPerSecond, double? WindowCpuMicrosPerMB, double Load);

    public static async Task<string> WriteAsync(string cliDll, string azcopy)
    {
        string work = Path.Combine(Path.GetTempPath(), "bench-peers-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(work);
        string file = Path.Combine(work, "blob.bin");
        {
            byte[] chunk = new byte[BlockBytes];
            await using var output = File.Create(file);
            for (long written = 0; written < BlobBytes; written += chunk.Length)
            {
                Random.Shared.NextBytes(chunk);
                await output.WriteAsync(chunk);
            }
        }
        await using var azurite = await AzuriteServer.StartAsync();
        var service = new BlobServiceClient(azurite.ConnectionString);
        var container = service.GetBlobContainerClient("peers");
        await container.CreateIfNotExistsAsync();
        var sas = new BlobSasBuilder(BlobContainerSasPermissions.Create | BlobContainerSasPermissions.Write | BlobContainerSasPermissions.Read, DateTimeOffset.UtcNow.AddHours(2))
        {
            BlobContainerName = container.Name,
        }.ToSasQueryParameters(new StorageSharedKeyCredential(azurite.Account, azurite.Key)).ToString();

        var senders = new[] { AzCopy, AzCopy8, ClientSettings.LeanDriver, ClientSettings.SdkDriver };
        var runs = senders.ToDictionary(s => s, _ => new List<Upload?>());
        var failures = new List<string>();
        for (int round = 0; round < Rounds; round++)
        {
            foreach (string sender in senders)
            {
                try
                {
                    runs[sender].Add(sender is AzCopy or AzCopy8
                        ? await AzCopyAsync(azcopy, file, container, sas, work, round, sender == AzCopy8 ? 8 : null)
                        : await StorageBenchAsync(cliDll, azurite.ConnectionString, sender, work));
                }
                catch (InvalidOperationException ex)
                {
                    runs[sender].Add(null);
                    failures.Add($"{sender}, round {round + 1}: {ex.Message.Split('\n')[0]}");
                }
                Console.WriteLine($"blob peers {sender} round {round}: {runs[sender][^1]}");
                // Azurite keeps blobs in memory: each run's blob goes before the next run, so none pays for the others' bytes.
                // The CLI's task hub (its lease containers, still leased for a while after the CLI exits) stays: it holds no payload.
                await foreach (var item in service.GetBlobContainersAsync())
                {
                    if (item.Name != container.Name && !item.Name.StartsWith(TaskHubSettings.DefaultHubName.ToLowerInvariant() + "-", StringComparison.Ordinal))
                    {
                        await service.DeleteBlobContainerAsync(item.Name);
                    }
                }
                await foreach (var blob in container.GetBlobsAsync())
                {
                    await container.DeleteBlobAsync(blob.Name);
                }
            }
        }
        Directory.Delete(work, recursive: true);

        var md = new StringBuilder();
        md.AppendLine("### 5d. Blob uploads beside AzCopy (Azurite)");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"One {BlobBytes >> 20} MiB blob in {BlockBytes >> 20} MiB blocks to one Azurite (in-memory, loopback, its own process), by AzCopy {AzCopyVersion(azcopy)} (the npm package `@azure-tools/azcopy-linux`, pinned in package.json) and by `storagebench run` on the lean and the SDK driver; they alternate (AzCopy, AzCopy with 8 in flight, lean, SDK) for {Rounds} rounds, and each run's blob is deleted before the next. ") +
            "AzCopy runs as people run it: `azcopy copy FILE \"http://127.0.0.1:PORT/devstoreaccount1/peers/NAME?SAS\" --from-to LocalBlob --block-size-mb 4` at its own concurrency (32 requests in flight on this machine), and again with `AZCOPY_CONCURRENCY_VALUE=8`, storagebench's 8 blocks in flight, plus `--log-level ERROR` and `--skip-version-check` (no request leaves the machine); the SAS is signed with the well-known Azurite development key. " +
            "Its blob counts only when Get Blob Properties then reports the whole length. A storagebench run uses the same Azurite (`--connection-string`), one slice, 8 blocks in flight, `primeRounds` 16, start delay 1 s, and counts only when its own verification matched. " +
            "**Goodput** is the blob's MB over the process's whole life (start to exit: start-up, priming, start delay and verification included for storagebench, start-up and file reads for AzCopy), so both are measured alike; " +
            "**CPU per MB** is the process's user + system CPU over its whole life (read with bash's `times` around it), per MB of blob. storagebench's own figures, over its measured window only (what its summary reports), are in brackets. " +
            "Azurite shares the 2 cores and bounds every sender here (~90 MB/s): the CPU per MB is where the tools differ.");
        md.AppendLine();
        md.AppendLine("| sender | goodput | CPU per MB (of it kernel) | storagebench's window: goodput, CPU per MB | load average (1 min) during the runs |");
        md.AppendLine("|---|---:|---:|---:|---:|");
        foreach (string sender in senders)
        {
            var ok = runs[sender].Where(u => u is not null).Select(u => u!).ToList();
            string Cell(Func<Upload, double> pick, string format) => ok.Count == 0 ? "failed" :
                $"{ok.Average(pick).ToString(format, Inv)} ({string.Join(", ", runs[sender].Select(u => u is null ? "failed" : pick(u).ToString(format, Inv)))})";
            string name = sender switch { AzCopy => "AzCopy", AzCopy8 => "AzCopy, `AZCOPY_CONCURRENCY_VALUE=8`", _ => $"storagebench, {sender}" };
            string window = sender is AzCopy or AzCopy8 || ok.Count == 0 ? "" :
                string.Create(Inv, $"[{ok.Average(u => u.WindowMBPerSecond ?? 0):0.0} MB/s, {ok.Average(u => u.WindowCpuMicrosPerMB ?? 0):0} µs/MB]");
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

    /// <param name="inFlight">AZCOPY_CONCURRENCY_VALUE, or null for AzCopy's own choice.</param>
    private static async Task<Upload> AzCopyAsync(string azcopy, string file, BlobContainerClient container, string sas, string work, int round, int? inFlight)
    {
        string name = $"azcopy-{round}-{inFlight}.bin";
        string target = $"{container.Uri}/{name}?{sas}";
        var env = new Dictionary<string, string>
        {
            ["AZCOPY_LOG_LOCATION"] = Path.Combine(work, "azcopy-logs"),
            ["AZCOPY_JOB_PLAN_LOCATION"] = Path.Combine(work, "azcopy-plans"),
        };
        if (inFlight is { } n)
        {
            env["AZCOPY_CONCURRENCY_VALUE"] = n.ToString(Inv);
        }
        var (wall, user, system, load) = await TimedAsync(env, azcopy, "copy", file, target, "--from-to", "LocalBlob", "--block-size-mb", "4", "--log-level", "ERROR", "--skip-version-check");
        long length = (await container.GetBlobClient(name).GetPropertiesAsync()).Value.ContentLength;
        if (length != BlobBytes)
        {
            throw new InvalidOperationException($"AzCopy committed {length} of {BlobBytes} bytes");
        }
        double mb = BlobBytes / 1e6;
        return new(mb / wall, (user + system) * 1e6 / mb, system * 1e6 / mb, null, null, load);
    }

    private static async Task<Upload> StorageBenchAsync(string cliDll, string connection, string driver, string work)
    {
        string dir = Path.Combine(work, "run-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(new RunSpec
        {
            Scenario = "bench-peers",
            StartDelaySeconds = 1,
            Client = new ClientSettings { Driver = driver },
            BlobUpload = new BlobUploadSpec { BlobCount = 1, BlobSizeBytes = BlobBytes, BlockSizeBytes = BlockBytes, ParallelBlocks = 8, Slices = 1 },
        }, RunSpecParser.Options));
        var (wall, user, system, load) = await TimedAsync([], "dotnet", cliDll, "run", "--spec", specFile, "--connection-string", connection, "--out", dir);
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

    /// <summary>
    /// Runs a command under bash and reads its CPU with the `times` builtin (user and system time of the
    /// shell's finished children): the whole process's CPU, whatever it is written in. Wall time from start to exit.
    /// </summary>
    private static async Task<(double Wall, double User, double System, double Load)> TimedAsync(Dictionary<string, string> env, string file, params string[] args)
    {
        var (wall, user, system, load, _) = await TimedWithOutputAsync(env, file, args);
        return (wall, user, system, load);
    }

    /// <summary>As <see cref="TimedAsync"/>, with what the command printed (to check what it says it did).</summary>
    internal static async Task<(double Wall, double User, double System, double Load, string Output)> TimedWithOutputAsync(Dictionary<string, string> env, string file, params string[] args)
    {
        var psi = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        psi.ArgumentList.Add("-c");
        // The command's own output goes to stderr (kept for a failure's message); stdout carries only `times`.
        psi.ArgumentList.Add("\"$@\" >&2 || exit $?; times");
        psi.ArgumentList.Add("bash");
        psi.ArgumentList.Add(file);
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }
        foreach (var (name, value) in env)
        {
            psi.Environment[name] = value;
        }
        var wall = Stopwatch.StartNew();
        using var process = Process.Start(psi)!;
        var stderr = process.StandardError.ReadToEndAsync();
        var stdout = process.StandardOutput.ReadToEndAsync();
        var loads = new List<double>();
        while (!process.WaitForExit(500))
        {
            loads.Add(Load.Now());
        }
        await process.WaitForExitAsync();
        wall.Stop();
        loads.Add(Load.Now());
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{Path.GetFileName(file)} exited {process.ExitCode}: {Tail(await stderr)}");
        }
        // "0m0.001s 0m0.002s\n0m5.123s 0m1.456s": the shell's own times, then its children's.
        string[] children = (await stdout).Trim().Split('\n')[^1].Split(' ');
        return (wall.Elapsed.TotalSeconds, Seconds(children[0]), Seconds(children[1]), loads.Average(), await stderr);
    }

    private static double Seconds(string bashTime)
    {
        int m = bashTime.IndexOf('m', StringComparison.Ordinal);
        return double.Parse(bashTime[..m], Inv) * 60 + double.Parse(bashTime[(m + 1)..].TrimEnd('s'), Inv);
    }


    private static string Tail(string text) => text.Length <= 600 ? text.Trim() : "…" + text[^600..].Trim();

    internal static string AzCopyVersion(string azcopy)
    {
        var psi = new ProcessStartInfo(azcopy, "--version") { RedirectStandardOutput = true, UseShellExecute = false };
        using var process = Process.Start(psi)!;
        string version = process.StandardOutput.ReadToEnd().Trim();
        process.WaitForExit();
        return version.Replace("azcopy version ", "", StringComparison.Ordinal);
    }
}

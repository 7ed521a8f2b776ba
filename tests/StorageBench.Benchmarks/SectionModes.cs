using System.Diagnostics;
using System.Globalization;
using StorageBench.Engine.Targets;

namespace StorageBench.Benchmarks;

/// <summary>
/// This program's single-section modes (run by scripts/benchmark.sh's options) and the helper processes of section 5:
/// each writes its own section into BENCHMARKS.md and leaves the others as they were.
/// </summary>
internal static class SectionModes
{
    /// <summary>AzCopy for sections 5d and 5f (scripts/benchmark.sh installs it and sets this); without it they are left out.</summary>
    public static string? AzCopy => Environment.GetEnvironmentVariable("STORAGEBENCH_AZCOPY") is { Length: > 0 } path ? path : null;

    /// <summary>Runs the mode <paramref name="args"/> names; false when it names none of these.</summary>
    public static async Task<bool> TryRunAsync(string[] args)
    {
        if (args is ["floor-server"])
        {
            using var floor = FloorSink.Start();
            Console.WriteLine(floor.ConnectionString);
            // Serves until the parent closes stdin.
            await Console.In.ReadToEndAsync();
            return true;
        }
        if (args is ["floor-profile", var profiledDriver, var profiledCase, var floorConnection])
        {
            var floorCase = FloorCase.All.Single(c => c.Key == profiledCase);
            var floorTarget = StorageTarget.FromConnectionString(floorConnection);
            // Long enough that start-up (JIT, type loading, the credential) is a small share of the samples.
            for (var profiled = Stopwatch.StartNew(); profiled.Elapsed < TimeSpan.FromSeconds(20);)
            {
                await FloorBenchmark.RunAsync(floorTarget, floorCase.With(profiledDriver, 10 * floorCase.SmallRun), settle: false);
            }
            return true;
        }
        if (await EngineSections.TryRunAsync(args))
        {
            return true;
        }
        if (args is ["floor-capacity", var capacitySeconds, var capacityConnection])
        {
            // Iterating on the floor: what a raw socket sender gets through it (section 5a measures it beside every figure).
            foreach (var measuredCase in FloorCase.All.Concat(FloorCase.Reads))
            {
                var (request, units) = await FloorCapacity.RequestOfAsync(measuredCase);
                Console.WriteLine($"{measuredCase.Key} ({request.Length} B, {units} units): " + FloorCapacity.Measure(FloorSink.AddressIn(capacityConnection), request, units, measuredCase.InFlight, TimeSpan.FromSeconds(double.Parse(capacitySeconds, CultureInfo.InvariantCulture))));
            }
            return true;
        }
        if (args is ["floor-case", var caseDriver, var caseKey, var caseConnection])
        {
            // Iterating on a driver: one floor case's marginal cost, three times, against a running floor-server.
            var caseTarget = StorageTarget.FromConnectionString(caseConnection);
            var measured = FloorCase.All.Concat(FloorCase.Reads).Single(c => c.Key == caseKey);
            await FloorBenchmark.RunAsync(caseTarget, measured.With(caseDriver, measured.SmallRun));
            for (int i = 0; i < 3; i++)
            {
                Console.WriteLine(await FloorBenchmark.MarginalAsync(caseTarget, measured, caseDriver));
            }
            return true;
        }
        string? azcopy = AzCopy;
        if (args is ["driver", var driverCli, var driverOutput])
        {
            // Section 5 alone (./scripts/benchmark.sh --driver-only), in place of the section 5 the file has; the other sections stay as they were measured.
            string section = await LeanDriverSection.WriteAsync(driverCli, AppContext.BaseDirectory);
            if (azcopy is not null)
            {
                section += "\n" + await BlobPeersSection.WriteAsync(driverCli, azcopy);
            }
            section += "\n" + await ReadDriverSection.WriteAsync(driverCli, AppContext.BaseDirectory, BenchRuns.SpecsBeside(driverOutput));
            if (azcopy is not null)
            {
                section += "\n" + await DownloadPeersSection.WriteAsync(driverCli, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER"));
            }
            int heading = section.IndexOf('\n') + 1;
            string dated = section[..heading] + $"\nMeasured by `./scripts/benchmark.sh --driver-only` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; the sections outside 5 are from the full run the header names.\n" + section[heading..];
            string existing = File.Exists(driverOutput) ? await File.ReadAllTextAsync(driverOutput) : "";
            await File.WriteAllTextAsync(driverOutput, BenchmarksFile.Splice(existing, dated));
            return true;
        }
        if (args is ["blob-peers", var peersCli, var peersOutput])
        {
            // Section 5d alone (./scripts/benchmark.sh --blob-peers): storagebench beside AzCopy on Azurite.
            string section = await BlobPeersSection.WriteAsync(peersCli, azcopy ?? throw new InvalidOperationException("STORAGEBENCH_AZCOPY is not set: scripts/benchmark.sh installs AzCopy and sets it"));
            int heading = section.IndexOf('\n') + 1;
            string dated = section[..heading] + $"\nMeasured by `./scripts/benchmark.sh --blob-peers` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC.\n" + section[heading..];
            await File.WriteAllTextAsync(peersOutput, BenchmarksFile.Replace(File.Exists(peersOutput) ? await File.ReadAllTextAsync(peersOutput) : "", "### 5d. ", dated));
            return true;
        }
        if (args is ["read-peers", var readCli, var readOutput])
        {
            // Sections 5e and 5f alone (./scripts/benchmark.sh --read-peers): the read and page paths, lean against SDK, and downloads beside AzCopy.
            string stamp = $"\nMeasured by `./scripts/benchmark.sh --read-peers` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC.\n";
            string reads = await ReadDriverSection.WriteAsync(readCli, AppContext.BaseDirectory, BenchRuns.SpecsBeside(readOutput));
            string updated = BenchmarksFile.Replace(File.Exists(readOutput) ? await File.ReadAllTextAsync(readOutput) : "", "### 5e. ", reads.Insert(reads.IndexOf('\n') + 1, stamp));
            await File.WriteAllTextAsync(readOutput, updated);
            if (azcopy is not null)
            {
                string downloads = await DownloadPeersSection.WriteAsync(readCli, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER"));
                await File.WriteAllTextAsync(readOutput, BenchmarksFile.Replace(updated, "### 5f. ", downloads.Insert(downloads.IndexOf('\n') + 1, stamp)));
            }
            return true;
        }
        if (args is ["download-peers", var downloadCli, var downloadOutput] && azcopy is not null)
        {
            // Section 5f alone (./scripts/benchmark.sh --download-peers): downloads beside AzCopy and the JS SDK.
            string downloads = await DownloadPeersSection.WriteAsync(downloadCli, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER"));
            string stamp = $"\nMeasured by `./scripts/benchmark.sh --download-peers` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC.\n";
            await File.WriteAllTextAsync(downloadOutput, BenchmarksFile.Replace(await File.ReadAllTextAsync(downloadOutput), "### 5f. ", downloads.Insert(downloads.IndexOf('\n') + 1, stamp)));
            return true;
        }
        if (args is ["soak", var soakCli, var soakOutput, var soakMinutes, var soakEvery])
        {
            // The soak alone (./scripts/benchmark.sh --soak [minutes]): its section replaces the file's own, the others stay.
            string soak = await SoakSection.WriteAsync(soakCli, AppContext.BaseDirectory, double.Parse(soakMinutes, CultureInfo.InvariantCulture),
                double.Parse(soakEvery, CultureInfo.InvariantCulture), Path.Combine(Path.GetDirectoryName(Path.GetFullPath(soakOutput))!, "out", "soak", "memory-samples.tsv"));
            await File.WriteAllTextAsync(soakOutput, BenchmarksFile.Splice(File.Exists(soakOutput) ? await File.ReadAllTextAsync(soakOutput) : "", soak));
            return true;
        }
        if (args is ["segment-history", var historyOutput])
        {
            // Section 12 alone (./scripts/benchmark.sh --segment-history): replay time and history size at 6 and 60 segments a slice.
            string history = await SegmentHistorySection.WriteAsync();
            await File.WriteAllTextAsync(historyOutput, BenchmarksFile.Splice(File.Exists(historyOutput) ? await File.ReadAllTextAsync(historyOutput) : "", history));
            return true;
        }
        if (args is ["floor", var floorOutput])
        {
            // Section 5 alone, for iterating on the driver: ./scripts/benchmark.sh runs it with everything else.
            await File.WriteAllTextAsync(floorOutput, await LeanDriverSection.WriteAsync(null, AppContext.BaseDirectory));
            return true;
        }
        return false;
    }
}

using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;

namespace StorageBench.Benchmarks;

/// <summary>
/// Section 5e of BENCHMARKS.md: the read and page paths (tableRead point reads and query pages, blobDownload of whole
/// blobs and of ranges, pageBlobUpload's Put Page), lean driver against SDK driver — on the floor (the driver's own CPU
/// per unit, marginal, as 5a) and against Azurite (whole CLI runs of the specs in specs/, as 5c), alternated.
/// </summary>
public static class ReadDriverSection
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;
    private static readonly string[] Drivers = [ClientSettings.SdkDriver, ClientSettings.LeanDriver];

    /// <param name="cliDll">The published CLI for the Azurite runs; null leaves them out.</param>
    /// <param name="specs">The repository's specs/ folder (the Azurite rows run its read and page specs).</param>
    public static async Task<string> WriteAsync(string? cliDll, string benchDir, string specs)
    {
        var md = new StringBuilder();
        using var server = LeanDriverSection.StartFloorServer(Path.Combine(benchDir, "StorageBench.Benchmarks.dll"), out string connection);
        var target = StorageTarget.FromConnectionString(connection);
        md.AppendLine("### 5e. Reads and page blobs: lean against SDK");
        md.AppendLine();
        md.AppendLine("The read and page requests — tableRead's Get Entity and Query Entities pages, blobDownload's Get Blob (whole, and with x-ms-range), pageBlobUpload's create and Put Page — are equal on the wire on both drivers (LeanWireTests.Reads, .Download, .PageBlob). " +
            "**On the floor**, measured as 5a (its own floor process; marginal CPU of a 3× run over a 1× run, one slice, `primeRounds` 0, three discarded warm-up runs per driver and case, then two rounds of floor capacity, SDK, lean; single runs in brackets): the floor answers a table read with the entities tableRead seeds (payload bytes, Sequence, keys: both drivers check every entity, and a run with a wrong or missing one fails here), " +
            "a query page with at most `$top` entities and its continuation headers, a Get Blob of a blob seeded on it once (one Put Blob, before any measured run) with that many zero bytes (200, or 206 for a range), a page blob's create and Put Page with 201; every answer written into the connection's own buffers, nothing allocated per request. " +
            "Units: entities returned for reads, MB received for downloads, MB sent for Put Page. **Floor capacity** is the raw sender of 5a sending the lean driver's own request and draining the answer; a driver within 20 % of it is **floor-bound**. " +
            "A driver above 100 % of the capacity outran the raw sender, which drains each answer through a 256 KiB buffer where the drivers read up to 1 MiB at a time: for downloads the capacity is a lower bound on what the floor serves, not a ceiling.");
        md.AppendLine();
        md.AppendLine("| workload | sender | CPU | of it kernel | allocated | throughput | floor capacity | load (1 min) |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---:|---:|");
        var failures = new List<string>();
        foreach (var floorCase in FloorCase.Reads)
        {
            try
            {
                md.Append(await FloorRowsAsync(floorCase, target, connection));
            }
            catch (Exception ex) when (ex is InvalidOperationException or System.Net.Http.HttpRequestException or Azure.RequestFailedException)
            {
                // A case that failed is said so, not left out silently.
                failures.Add($"{floorCase.Label}: {ex.Message.Split('\n')[0]}");
                md.AppendLine($"| {floorCase.Label} | — | failed | | | | | |");
                Console.WriteLine($"floor {floorCase.Key} failed: {ex}");
            }
        }
        md.AppendLine();
        md.AppendLine($"Load (1 min) is the load average read after each measurement (2 cores, shared with other builds and tests); when the floor runs ended it was {LoadAverage()}." +
            (failures.Count > 0 ? " Cases that failed: " + string.Join("; ", failures) : ""));

        if (cliDll is not null)
        {
            md.AppendLine();
            md.AppendLine("**Against Azurite**, as 5c: each run is its own CLI process (`storagebench run --spec`) with its own fresh Azurite, the spec file as committed with only `client.driver` set; SDK and lean alternate, two rounds. Throughput is entities/s returned or MB/s of whole blobs (downloaded and checked, or committed); CPU is the driver process's over the measured window per entity or per MB (`clientCpuMicroseconds…`). The page row runs seed002-page-or-block.json's `pageBlobUpload` section alone.");
            md.AppendLine();
            md.AppendLine("| spec | driver | throughput | driver CPU | load (1 min) |");
            md.AppendLine("|---|---|---:|---:|---:|");
            var azuriteFailures = new List<string>();
            foreach (var (label, spec) in AzuriteCases(specs))
            {
                var runs = Drivers.ToDictionary(d => d, _ => new List<(double Rate, double Cpu)>());
                var loads = Drivers.ToDictionary(d => d, _ => new List<double>());
                for (int round = 0; round < 2; round++)
                {
                    foreach (string driver in Drivers)
                    {
                        try
                        {
                            runs[driver].Add(await ColdRunAsync(cliDll, spec with { Client = spec.Client with { Driver = driver } }));
                        }
                        catch (InvalidOperationException ex)
                        {
                            runs[driver].Add((double.NaN, double.NaN));
                            azuriteFailures.Add($"{label}, {driver}, round {round + 1}: {ex.Message.Split('\n').FirstOrDefault(l => l.Contains("rror", StringComparison.Ordinal) || l.Contains("Exception", StringComparison.Ordinal))?.Trim() ?? ex.Message.Split('\n')[0]}");
                        }
                        loads[driver].Add(Load.Now());
                        Console.WriteLine($"azurite {label} {driver} round {round}: {runs[driver][^1]}");
                    }
                }
                bool entities = spec.TableRead is not null;
                foreach (string driver in Drivers)
                {
                    var r = runs[driver];
                    md.AppendLine(Inv, $"| {label} | {driver} | {Runs(r, x => x.Rate)} {(entities ? "entities/s" : "MB/s")} | {Runs(r, x => x.Cpu)} µs/{(entities ? "entity" : "MB")} | {Loads(loads[driver])} |");
                }
            }
            md.AppendLine();
            md.AppendLine($"Load (1 min) read after each run; at the end it was {LoadAverage()}. These specs are small (seconds on Azurite), so a run's fixed cost per second (orchestration, progress, the runtime) is much of its CPU per unit, as 5c says; the floor rows above are the drivers' own costs.");
            if (azuriteFailures.Count > 0)
            {
                md.AppendLine();
                md.AppendLine("Runs that failed (their figures are left out of the means): " + string.Join("; ", azuriteFailures));
            }
        }
        return md.ToString();
    }

    /// <summary>One case's rows: the floor's capacity, then SDK and lean, alternated for two rounds after three warm-up runs each.</summary>
    private static async Task<string> FloorRowsAsync(FloorCase floorCase, StorageTarget target, string connection)
    {
        var (request, requestUnits) = await FloorCapacity.RequestOfAsync(floorCase);
        for (int warm = 0; warm < 3; warm++)
        {
            foreach (string driver in Drivers)
            {
                var run = await FloorBenchmark.RunAsync(target, floorCase.With(driver, floorCase.SmallRun));
                if (run.Failed > 0)
                {
                    throw new InvalidOperationException($"{driver}: {run.Failed} requests failed or answers were wrong against the floor");
                }
            }
        }
        var runs = Drivers.ToDictionary(d => d, _ => new List<Marginal>());
        var capacities = new List<Capacity>();
        var loads = Drivers.Append("").ToDictionary(d => d, _ => new List<double>());
        for (int round = 0; round < 2; round++)
        {
            capacities.Add(FloorCapacity.Measure(FloorSink.AddressIn(connection), request, requestUnits, floorCase.InFlight, TimeSpan.FromSeconds(2)));
            loads[""].Add(Load.Now());
            Console.WriteLine($"floor {floorCase.Key} capacity round {round}: {capacities[^1]}");
            foreach (string driver in Drivers)
            {
                runs[driver].Add(await FloorBenchmark.MarginalAsync(target, floorCase, driver));
                loads[driver].Add(Load.Now());
                Console.WriteLine($"floor {floorCase.Key} {driver} round {round}: {runs[driver][^1]}");
            }
        }
        var md = new StringBuilder();
        string unit = floorCase.Unit, rateUnit = unit == "MB" ? "MB/s" : "entities/s";
        double capacity = capacities.Average(c => c.UnitsPerSecond);
        string capacityCell = string.Create(Inv, $"{capacity:N0} ({string.Join(", ", capacities.Select(c => c.UnitsPerSecond.ToString("N0", Inv)))}) {rateUnit}");
        md.AppendLine(Inv, $"| {floorCase.Label} | raw sender (floor capacity) | {capacities.Average(c => c.MicrosPerUnit):0.0##} ({string.Join(", ", capacities.Select(c => c.MicrosPerUnit.ToString("0.0##", Inv)))}) µs/{unit} | " +
            $"{capacities.Average(c => c.SystemMicrosPerUnit):0.0##} µs | 0 B | {capacityCell} | {capacityCell} | {Loads(loads[""])} |");
        foreach (string driver in Drivers)
        {
            var r = runs[driver];
            double micros = r.Average(x => x.MicrosPerUnit), rate = r.Average(x => x.UnitsPerSecond);
            string bound = rate >= 0.8 * capacity ? string.Create(Inv, $" **floor-bound** ({rate / capacity:P0} of capacity)") : "";
            md.AppendLine(Inv, $"| {floorCase.Label} | {driver} | {micros:0.0} ({string.Join(", ", r.Select(x => x.MicrosPerUnit.ToString("0.0", Inv)))}) µs/{unit} | {r.Average(x => x.SystemMicrosPerUnit):0.0} µs | " +
                $"{r.Average(x => x.BytesPerUnit):N0} ({string.Join(", ", r.Select(x => x.BytesPerUnit.ToString("N0", Inv)))}) B/{unit} | {rate:N0} {rateUnit}{bound} | {capacityCell} | {Loads(loads[driver])} |");
        }
        return md.ToString();
    }

    private static IEnumerable<(string Label, RunSpec Spec)> AzuriteCases(string specs)
    {
        RunSpec Load(string file) => RunSpecParser.ParseOrThrow(File.ReadAllText(Path.Combine(specs, file)));
        yield return ("table-read-point.json (2,000 × 1 KiB, 5,000 point reads, 2 slices × 8)", Load("table-read-point.json"));
        yield return ("table-read-int64-query.json (3,000 × 256 B, 200 queries of 1,200, 2 slices × 4)", Load("table-read-int64-query.json"));
        yield return ("blob-download.json (64 whole 8 MiB blobs, 2 slices × 4)", Load("blob-download.json"));
        yield return ("blob-download-ranges.json (16 blobs of 8 MiB in 1 MiB ranges, 4 in flight, verifyContent)", Load("blob-download-ranges.json"));
        yield return ("seed002-page-or-block.json, pageBlobUpload alone (2 × 32 MiB, 4 MiB pages × 8)", Load("seed002-page-or-block.json") with { BlobUpload = null });
    }

    private static string Runs(List<(double Rate, double Cpu)> r, Func<(double Rate, double Cpu), double> pick) =>
        r.Any(x => !double.IsNaN(pick(x)))
            ? $"{r.Where(x => !double.IsNaN(pick(x))).Average(pick).ToString("0.#", Inv)} ({string.Join(", ", r.Select(x => double.IsNaN(pick(x)) ? "failed" : pick(x).ToString("0.#", Inv)))})"
            : "failed";

    private static string Loads(List<double> loads) => string.Create(Inv, $"{loads.Average():0.0} ({string.Join(", ", loads.Select(l => l.ToString("0.0", Inv)))})");

    private static string LoadAverage() =>
        File.Exists("/proc/loadavg") ? string.Join(", ", File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) + " (1, 5, 15 min)" : "unknown";

    /// <summary>One CLI process on its own Azurite; throughput and CPU per unit from its summary.json, which must have verified.</summary>
    private static async Task<(double Rate, double Cpu)> ColdRunAsync(string cliDll, RunSpec spec)
    {
        string dir = Path.Combine(Path.GetTempPath(), "bench-reads-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(spec, RunSpecParser.Options));
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string a in new[] { cliDll, "run", "--spec", specFile, "--out", dir })
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        var stderr = process.StandardError.ReadToEndAsync();
        string stdout = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync();
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"CLI run exited {process.ExitCode}: {stdout}{await stderr}");
        }
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));
        var w = json.RootElement.GetProperty("workloads")[0];
        var t = w.GetProperty("throughput");
        Directory.Delete(dir, recursive: true);
        return spec.TableRead is not null
            ? (t.GetProperty("entitiesPerSecond").GetDouble(), w.GetProperty("clientCpuMicrosecondsPerEntity").GetDouble())
            : (t.GetProperty("megabytesPerSecond").GetDouble(), w.GetProperty("clientCpuMicrosecondsPerMegabyte").GetDouble());
    }
}

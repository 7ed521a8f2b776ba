using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using CsCheck;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// The whole input surface, fuzzed instead of listed: valid specs (specs/*.json) mutated — types, ranges, nesting,
/// encodings, unknown fields, duplicate keys, huge numbers, sweeps and searches — and command lines and API bodies built
/// around them. Every outcome is a plan (parser and validator accept it and the planner plans every step) or a rejection
/// naming a field and a rule; never an unhandled exception. In the suite: a fixed seed and a few thousand cases (a few
/// seconds). STORAGEBENCH_FUZZ_SECONDS=N runs each property for its share of N seconds from a random seed instead
/// (scripts/benchmark.sh --fuzz-minutes); STORAGEBENCH_FUZZ_REPORT=FILE appends the figures there.
/// </summary>
/// <remarks>
/// The command lines and API bodies only take paths that end before anything starts: every spec they carry is one the
/// parser rejects, so no case starts Azurite, a run or a request to storage.
/// </remarks>
[Trait("Category", "Unit")]
public class InputFuzzTests(ITestOutputHelper output)
{
    /// <summary>The suite's fixed run: case i is built from seed FixedSeed + i.</summary>
    private const int FixedSeed = 20_270_027;

    private static readonly string[] ValidSpecs = [.. Directory.GetFiles(Path.Combine(Repo.Root(), "specs"), "*.json").Order(StringComparer.Ordinal).Select(File.ReadAllText)];

    /// <summary>Numeric fields a sweep or search may name (and some it may not).</summary>
    private static readonly string[] Parameters =
    [
        "tableInsert.batchSize", "tableInsert.concurrency", "tableInsert.entityCount", "tableInsert.partitionCount", "tableInsert.slices",
        "tableInsert.entitySizeBytes", "tableInsert.targetOperationsPerSecond", "tableInsert.warmupOperations", "blobUpload.blockSizeBytes",
        "blobUpload.blobSizeBytes", "blobUpload.parallelBlocks", "blobUpload.slices", "startDelaySeconds", "client.primeRounds",
        "scenario", "client.driver", "tableInsert", "", "nope.field", "tableInsert.batchSize.x",
    ];

    private static readonly string[] Numbers =
    [
        "0", "-0", "1", "-1", "2", "3", "10", "100", "101", "1000", "1e3", "1E3", "1.0", "1.5", "0.1", "1e-7", "1e-400", "255", "256", "257",
        "1024", "65535", "65536", "2147483647", "2147483648", "-2147483649", "4194304000", "4194304001", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "99999999999999999999999999", "1e12", "1e15", "1e18", "1e30", "1e308", "1e400", "-1e400",
        "1000000000", "1000000001", "86400", "86401", "300", "3600", "0.5", "0.99", "1.01", "123456.789",
    ];

    private static readonly string[] Texts =
    [
        "", " ", "quick", "lean", "sdk", "1000", "1e3", "true", "null", "ü", "😀", "\u0000", "\ud800", "a\"b", "back\\slash", "line\nbreak",
        new string('x', 300), "../../etc/passwd", "tableInsert.batchSize",
    ];

    private static int FuzzSeconds =>
        int.TryParse(Environment.GetEnvironmentVariable("STORAGEBENCH_FUZZ_SECONDS"), NumberStyles.None, CultureInfo.InvariantCulture, out int s) ? s : 0;

    /// <summary>A mutated spec from one seed: which valid spec, and 1 to 6 mutations of it.</summary>
    private static string MutatedSpec(Random rng) => Mutate(ValidSpecs[rng.Next(ValidSpecs.Length)], rng, rng.Next(1, 7));

    [Fact]
    public void EverySpecIsAPlanOrARejectionNamingAField()
    {
        long cases = 0, accepted = 0;
        Run("spec", seed => MutatedSpec(new Random(seed)), json =>
        {
            Interlocked.Increment(ref cases);
            if (CheckSpec(json))
            {
                Interlocked.Increment(ref accepted);
            }
        }, iterations: 4_000, share: 0.6);
        Report("spec parser/validator/planner", cases, $"{accepted} planned, {cases - accepted} rejected naming a field");
        Assert.True(accepted > 0 && accepted < cases, $"{accepted} of {cases} accepted: the mutations should give both");
    }

    [Fact]
    public void EveryCommandLineIsAUsageErrorOrHelpNeverAStackTrace()
    {
        string dir = Directory.CreateTempSubdirectory("sb-fuzz-cli-").FullName;
        long cases = 0;
        try
        {
            Run("command line", seed => (Command: seed % 3, Spec: RejectedSpec(new Random(seed)), Seed: seed), c =>
            {
                Interlocked.Increment(ref cases);
                string file = Path.Combine(dir, $"{Guid.NewGuid():N}.json");
                // A file holds bytes: a lone surrogate becomes U+FFFD, as any editor would save it.
                File.WriteAllBytes(file, new UTF8Encoding(false, false).GetBytes(c.Spec));
                // Never start a run: what the command will read must be a spec the parser rejects.
                Assert.Null(RunSpecParser.Parse(File.ReadAllText(file)).Spec);
                try
                {
                    CheckCommandLine(Arguments(c.Command, file, dir, new Random(c.Seed)));
                }
                finally
                {
                    File.Delete(file);
                }
            }, iterations: 300, share: 0.25);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
        Report("command line (run, ab, unknown)", cases, "every one exited 0 (help) or 2 (usage error, spec rejected) with no stack trace");
    }

    [Fact]
    public void EveryRejectedApiBodyIsA400NamingAFieldAndStartsNothing()
    {
        // Nothing here reaches storage: every body is rejected before the preflight, so this target is never contacted.
        var target = StorageTarget.FromConnectionString("UseDevelopmentStorage=true");
        using var results = new ResultsTableStore(target);
        var api = new RunsApi(new UnreachableClient(), results, new TargetCleaner([target]), TimeProvider.System, "fuzz");
        string?[] ids = [null, "", "run-1", "UPPER", "a b", new string('a', 37), "-x", "ü", "nightly-20260101"];
        long cases = 0;
        Run("API body", seed => (RejectedSpec(new Random(seed)), ids[(seed & int.MaxValue) % ids.Length]), c =>
        {
            Interlocked.Increment(ref cases);
            var response = api.StartAsync(c.Item1, new Uri("http://localhost/"), c.Item2, default).GetAwaiter().GetResult();
            Assert.True(response.StatusCode == 400, $"{response.StatusCode}: {response.Body.ToJsonString()}");
            Assert.Contains("\"field\"", response.Body.ToJsonString(), StringComparison.OrdinalIgnoreCase);
        }, iterations: 300, share: 0.15);
        Report("HTTP API StartAsync body", cases, "every one answered 400 naming a field; none scheduled");
    }

    /// <summary>A mutated spec the parser rejects (a mutation that happens to stay valid gets a field that is not one).</summary>
    private static string RejectedSpec(Random rng)
    {
        string json = MutatedSpec(rng);
        // Judged as the command line reads it back from a file (a lone surrogate saved as U+FFFD, a leading BOM dropped):
        // a spec rejected only for its BOM here would be accepted there, and its run would start.
        int brace = json.IndexOf('{', StringComparison.Ordinal);
        string[] candidates =
        [
            json,
            json.TrimEnd().TrimEnd('}') + ", \"notAField\": 1 }",
            brace < 0 ? "" : json[..brace] + "{\"notAField\": 1, " + json[(brace + 1)..],
        ];
        return candidates.FirstOrDefault(c => c.Length > 0 && RunSpecParser.Parse(c).Spec is null && RunSpecParser.Parse(AsRead(c)).Spec is null) ?? "{\"notAField\": 1}";
    }

    /// <summary>The text as a command reads it from the file the test writes: UTF-8 (a lone surrogate saved as U+FFFD), a leading BOM dropped.</summary>
    private static string AsRead(string text)
    {
        var utf8 = new UTF8Encoding(false, false);
        return utf8.GetString(utf8.GetBytes(text)).TrimStart('\ufeff');
    }

    /// <summary>True when the spec was accepted (and planned); false when rejected with named fields. Throws otherwise.</summary>
    private static bool CheckSpec(string json)
    {
        var (spec, errors) = RunSpecParser.Parse(json);
        if (spec is null)
        {
            Assert.NotEmpty(errors);
            Assert.All(errors, e => Assert.False(string.IsNullOrWhiteSpace(e.Field) || string.IsNullOrWhiteSpace(e.Rule), $"unnamed error: {e}"));
            return false;
        }
        Assert.Empty(errors);
        IEnumerable<RunSpec> steps = spec.Sweep is { } sweep ? sweep.Values.Select(v => SpecVariants.Apply(spec, sweep.Parameter, v))
            : spec.Saturation is { } s ? s.Values().Select(v => SpecVariants.Apply(spec, s.Parameter, v))
            : [spec];
        foreach (var step in steps)
        {
            Assert.Empty(RunSpecValidator.Validate(step));
            var start = DateTime.UtcNow;
            if (step.TableInsert is { } t)
            {
                var plans = TableInsertRoom.PlanSlices("fuzz", "fuzz-s000", "sbtfuzz", t, step.Client, start);
                Assert.Equal(t.Slices, plans.Count);
                Assert.All(plans, p => Assert.True(p.EntityCount > 0 && p.Partitions.Count > 0));
            }
            if (step.BlobUpload is { } b)
            {
                var plans = BlobUploadRoom.PlanSlices("fuzz", "fuzz-s000", "sbbfuzz", b, step.Client, start);
                Assert.Equal(b.Slices, plans.Count);
                Assert.All(plans, p => Assert.True(p.BlobCount > 0));
            }
        }
        return true;
    }

    private static void CheckCommandLine(string[] args)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        string shown = string.Join(" ", args.Select(a => $"[{(a.Length > 60 ? a[..60] + "…" : a)}]"));
        // A command line that ends before anything starts answers at once; one that hangs is a failure too.
        var call = CliApp.RunAsync(args, stdout, stderr, default);
        if (!call.Wait(TimeSpan.FromSeconds(60)))
        {
            throw new TimeoutException($"no answer in 60 s for {shown}");
        }
        int exit = call.Result;
        Assert.True(exit is 0 or CliApp.UsageError, $"exit {exit} for {shown}: {stderr}");
        Assert.DoesNotContain("   at ", stderr.ToString());
        Assert.DoesNotContain("Exception", stderr.ToString());
        if (exit == 0)
        {
            // Only help or the version exit 0 here: a spec was always rejected.
            Assert.Contains(args, a => a is "--help" or "-h" or "-?" or "--version" or "help");
        }
        else
        {
            Assert.StartsWith("error: ", stderr.ToString());
        }
    }

    /// <summary>
    /// A command line around a rejected spec file: run (--spec FILE last), ab (--baseline/--candidate FILE last) or an
    /// unknown command, with random options and values in between. No token can name a spec that would start a run.
    /// </summary>
    private static string[] Arguments(int command, string specFile, string dir, Random rng)
    {
        string[] options =
        [
            "--out", "--connection-string", "--prices", "--force", "-v", "--verbose", "-q", "--quiet", "--json", "--rounds", "--order",
            "--threshold", "--help", "-h", "--version", "--bogus", "-x", "--", "--spec=", "--out=",
        ];
        string[] values =
        [
            "", " ", dir, Path.Combine(dir, "missing.json"), Path.Combine(dir, "sub", "deeper"), "UseDevelopmentStorage=true", "garbage",
            "AccountName=x;AccountKey=%%%", "-1", "0", "4", "1e3", "abc", "ü😀", "alternate", "random", new string('y', 2_000), "bad\0path",
        ];
        var args = new List<string>();
        args.Add(command switch { 0 => "run", 1 => "ab", _ => Pick(rng, ["runz", "", "RUN", "-", "--spec", "ab-test", "help"]) });
        for (int i = rng.Next(0, 5); i > 0; i--)
        {
            args.Add(Pick(rng, options));
            if (rng.Next(2) == 0)
            {
                args.Add(Pick(rng, values));
            }
        }
        if (command == 0)
        {
            args.AddRange(["--spec", specFile]);
        }
        else if (command == 1)
        {
            args.AddRange(["--baseline", specFile, "--candidate", specFile]);
        }
        return [.. args];
    }

    private static T Pick<T>(Random rng, IReadOnlyList<T> from) => from[rng.Next(from.Count)];

    /// <summary>Applies <paramref name="count"/> random mutations to a valid spec: at the JSON level, then sometimes at the text level.</summary>
    private static string Mutate(string json, Random rng, int count)
    {
        var root = JsonNode.Parse(json, documentOptions: new() { CommentHandling = System.Text.Json.JsonCommentHandling.Skip, AllowTrailingCommas = true })!.AsObject();
        for (int i = 0; i < count; i++)
        {
            var containers = Containers(root).ToList();
            var (node, _) = Pick(rng, containers);
            switch (rng.Next(9))
            {
                case 0 or 1 or 2 when node is JsonObject o && o.Count > 0:
                    // Replace a field's value.
                    o[Pick(rng, [.. o.Select(p => p.Key)])] = RandomValue(rng, depth: 0);
                    break;
                case 3 when node is JsonObject o && o.Count > 0:
                    o.Remove(Pick(rng, [.. o.Select(p => p.Key)]));
                    break;
                case 4 when node is JsonObject o:
                    // An unknown field, or a known one written in another case.
                    o[Pick(rng, ["extra", "EntityCount", "BATCHSIZE", "tableinsert", "clients", "Scenario", "ü"])] = RandomValue(rng, 0);
                    break;
                case 5:
                    root[Pick(rng, ["tableInsert", "blobUpload", "client"])] ??= new JsonObject();
                    if (root["tableInsert"] is JsonObject t)
                    {
                        t[Pick(rng, ["entityCount", "batchSize", "partitionCount", "slices", "warmupOperations", "durationSeconds", "warmupSeconds", "concurrency", "targetOperationsPerSecond"])] =
                            JsonNode.Parse(Pick(rng, Numbers));
                    }
                    break;
                case 6:
                    // A sweep or a search over a (possibly bad) parameter.
                    if (rng.Next(2) == 0)
                    {
                        root["sweep"] = new JsonObject
                        {
                            ["parameter"] = Pick(rng, Parameters),
                            ["values"] = new JsonArray([.. Enumerable.Range(0, rng.Next(0, 6)).Select(_ => JsonNode.Parse(Pick(rng, Numbers)))]),
                        };
                    }
                    else
                    {
                        root["saturation"] = new JsonObject
                        {
                            ["parameter"] = Pick(rng, Parameters),
                            ["start"] = JsonNode.Parse(Pick(rng, Numbers)),
                            ["max"] = JsonNode.Parse(Pick(rng, Numbers)),
                            [Pick(rng, ["factor", "step"])] = JsonNode.Parse(Pick(rng, Numbers)),
                        };
                    }
                    break;
                case 7 when node is JsonArray a:
                    a.Add(RandomValue(rng, 0));
                    break;
                default:
                    root[Pick(rng, ["scenario", "startDelaySeconds", "maxUnstoredShare"])] = RandomValue(rng, 0);
                    break;
            }
        }
        string text = root.ToJsonString();
        return rng.Next(4) == 0 ? MutateText(text, rng) : text;
    }

    /// <summary>Every object and array in the tree, with its path.</summary>
    private static IEnumerable<(JsonNode Node, string Path)> Containers(JsonNode node, string path = "")
    {
        yield return (node, path);
        var children = node switch
        {
            JsonObject o => o.Select(p => (p.Value, path + "." + p.Key)),
            JsonArray a => a.Select((v, i) => (v, $"{path}[{i}]")),
            _ => [],
        };
        foreach (var (child, at) in children)
        {
            if (child is JsonObject or JsonArray)
            {
                foreach (var c in Containers(child, at))
                {
                    yield return c;
                }
            }
        }
    }

    private static JsonNode? RandomValue(Random rng, int depth) => rng.Next(depth > 3 ? 4 : 7) switch
    {
        0 => JsonNode.Parse(Pick(rng, Numbers)),
        1 => JsonValue.Create(Pick(rng, Texts)),
        2 => rng.Next(3) switch { 0 => JsonValue.Create(true), 1 => JsonValue.Create(false), _ => null },
        3 => JsonNode.Parse(Pick(rng, Numbers)),
        4 => new JsonArray([.. Enumerable.Range(0, rng.Next(0, 4)).Select(_ => RandomValue(rng, depth + 1))]),
        5 => new JsonObject(Enumerable.Range(0, rng.Next(0, 3)).Select(i => KeyValuePair.Create(Pick(rng, ["a", "entityCount", "driver", "values"]) + i, RandomValue(rng, depth + 1)))),
        _ => Nest(rng.Next(1, 80)),
    };

    /// <summary>Arrays nested this deep (past 64 the JSON reader's own limit).</summary>
    private static JsonNode Nest(int depth)
    {
        JsonNode node = JsonValue.Create(1);
        for (int i = 0; i < depth; i++)
        {
            node = new JsonArray(node);
        }
        return node;
    }

    /// <summary>Damage at the text level: cut, flipped characters, a BOM, a duplicate key, comments, odd characters.</summary>
    private static string MutateText(string text, Random rng)
    {
        var s = new StringBuilder(text);
        int at = rng.Next(s.Length + 1);
        switch (rng.Next(8))
        {
            case 0:
                return text[..at];
            case 1 when s.Length > 0:
                s[Math.Min(at, s.Length - 1)] = Pick(rng, ['{', '}', '"', ',', ':', '[', ']', '\\', '\0', '\u00ff', '\ud800', ' ', '9', 'e', '-']);
                break;
            case 2:
                s.Insert(0, '\ufeff');
                break;
            case 3:
                // The same key twice in the outer object (and maybe in another case).
                s.Insert(1, Pick(rng, ["\"scenario\": \"dup\", ", "\"Scenario\": 1, ", "\"tableInsert\": {}, ", "\"client\": {\"driver\": \"sdk\", \"Driver\": \"lean\"}, "]));
                break;
            case 4:
                s.Insert(at, Pick(rng, ["/* c */", "// c\n", "\n", "\t", "\u2028", ","]));
                break;
            case 5:
                return text + Pick(rng, ["", " ", "}", "{}", "x", "\0", " // trailing"]);
            case 6:
                return Encoding.Latin1.GetString(Encoding.UTF8.GetBytes(text));
            default:
                return Pick(rng, ["", " ", "null", "[]", "\"spec\"", "42", "{", "{}", "{\"scenario\":\"x\"}", text.Replace("\"", "'", StringComparison.Ordinal)]);
        }
        return s.ToString();
    }

    /// <summary>
    /// Runs a property over cases built from one int seed each: in the suite, seeds FixedSeed, FixedSeed + 1, … (the same
    /// cases every time); with STORAGEBENCH_FUZZ_SECONDS, CsCheck draws seeds on every core for this property's share of
    /// the time and shrinks any failure to the smallest seed it can, printing it.
    /// </summary>
    private void Run<T>(string what, Func<int, T> build, Action<T> property, long iterations, double share)
    {
        int seconds = FuzzSeconds;
        if (seconds > 0)
        {
            Gen.Int.Select(build).Sample(property, writeLine: output.WriteLine, time: Math.Max(1, (int)(seconds * share)));
        }
        else
        {
            for (int i = 0; i < iterations; i++)
            {
                var input = build(FixedSeed + i);
                try
                {
                    property(input);
                }
                catch (Exception ex)
                {
                    throw new Xunit.Sdk.XunitException($"{what}: case {FixedSeed + i} failed: {input}", ex);
                }
            }
        }
        output.WriteLine($"{what}: done");
    }

    private void Report(string surface, long cases, string outcome)
    {
        string line = $"{surface}: {cases:N0} cases, 0 unhandled exceptions ({outcome})";
        output.WriteLine(line);
        if (Environment.GetEnvironmentVariable("STORAGEBENCH_FUZZ_REPORT") is { Length: > 0 } file)
        {
            File.AppendAllText(file, line + Environment.NewLine);
        }
    }
}

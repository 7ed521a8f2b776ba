using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using System.Text;
using System.Text.Json.Nodes;
using CsCheck;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;

namespace StorageBench.Tests;

/// <summary>
/// Memory has a budget (issue 43): a spec whose payload memory exceeds it is refused before anything starts, naming the
/// budget, the figure and the fields that drive it; a blob payload is one shared buffer, so slices do not multiply it.
/// </summary>
[Trait("Category", "Unit")]
public class MemoryBudgetTests
{
    private const long MiB = 1024 * 1024;

    private static RunSpec Table(int slices, int concurrency, int batchSize, int entitySize) => new()
    {
        Scenario = "memory", TableInsert = new TableInsertSpec { Slices = slices, Concurrency = concurrency, BatchSize = batchSize, EntitySizeBytes = entitySize },
    };

    [Fact]
    public void ATableSpecIsRefusedExactlyWhenItsRequestsInFlightExceedTheBudgetNamingTheFieldsAndTheBudget()
    {
        Gen.Select(Gen.Int[1, 256], Gen.Int[1, 1024], Gen.Int[1, 100], Gen.Int[1, 32_768], Gen.Long[1, 64_000]).Sample((slices, concurrency, batch, size, budgetMiB) =>
        {
            var budget = new MemoryBudget(budgetMiB * MiB, "a test's");
            long planned = slices * (long)concurrency * (long)Math.Ceiling(batch * (double)size * 4 / 3);

            var refused = budget.Refusal(Table(slices, concurrency, batch, size));

            Assert.Equal(planned > budget.Bytes, refused is not null);
            if (refused is not null)
            {
                Assert.Equal($"{planned / MiB:N0} MiB of payload memory", refused.Value);
                Assert.Contains($"exceeds the memory budget of {budgetMiB:N0} MiB (a test's)", refused.Rule, StringComparison.Ordinal);
                Assert.Contains($"tableInsert.slices {slices} × tableInsert.concurrency {concurrency}", refused.Rule, StringComparison.Ordinal);
            }
        });
    }

    [Fact]
    public void BlobSlicesShareOneBlockSoTheirNumberDoesNotCount()
    {
        var budget = new MemoryBudget(300 * MiB, "a test's");
        Gen.Int[1, 256].Sample(slices =>
        {
            var spec = new RunSpec { Scenario = "memory", BlobUpload = new BlobUploadSpec { BlobCount = 256, BlobSizeBytes = 256 * MiB, BlockSizeBytes = 256 << 20, Slices = slices } };
            Assert.Null(budget.Refusal(spec));
        });
    }

    [Fact]
    public void ASweepIsJudgedByItsLargestStep()
    {
        var budget = new MemoryBudget(100 * MiB, "a test's");
        var spec = Table(slices: 1, concurrency: 1, batchSize: 100, entitySize: 16_384) with { Sweep = new SweepSpec("tableInsert.concurrency", [1, 8, 64]) };

        var refused = budget.Refusal(spec);

        Assert.NotNull(refused);
        Assert.Contains("tableInsert.concurrency 64 ", refused.Rule, StringComparison.Ordinal);
        Assert.Null(budget.Refusal(spec with { Sweep = new SweepSpec("tableInsert.concurrency", [1, 8]) }));
    }

    [Fact]
    public void AnInstanceLimitSmallerThanTheMachineIsTheBudget()
    {
        var budget = MemoryBudget.OfThisProcess(name => name == MemoryBudget.InstanceLimitSetting ? "512" : null, slicesPerProcess: 32);
        Assert.Equal((256 * MiB, 32), (budget.Bytes, budget.SlicesPerProcess));
        Assert.Contains("512 MiB (WEBSITE_MEMORY_LIMIT_MB)", budget.Source, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheApiRefusesASpecOverTheMachinesBudgetAtOnceNamingMemoryAndStartsNothing()
    {
        await using var serve = await EngineLessServe.StartAsync();
        // 256 slices × 1,024 requests in flight × 100 entities of 16 KiB: about 0.5 TiB of request bodies, more than any machine here.
        const string spec = """{ "scenario": "memory", "tableInsert": { "slices": 256, "concurrency": 1024, "batchSize": 100, "entitySizeBytes": 16384, "partitionCount": 256 } }""";

        using var response = await serve.Http.PostAsync("api/runs", new StringContent(spec, Encoding.UTF8, "application/json"));
        var body = JsonNode.Parse(await response.Content.ReadAsStringAsync())!;

        Assert.Equal(400, (int)response.StatusCode);
        var error = body["errors"]!.AsArray().Single()!;
        Assert.EndsWith("MiB of payload memory", (string?)error["value"], StringComparison.Ordinal);
        Assert.Contains("exceeds the memory budget of", (string?)error["rule"], StringComparison.Ordinal);
        Assert.Contains("tableInsert.entitySizeBytes 16,384", (string?)error["rule"], StringComparison.Ordinal);
    }
}

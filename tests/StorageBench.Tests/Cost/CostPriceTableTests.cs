using System.Text.RegularExpressions;
using StorageBench.Engine.Cost;

namespace StorageBench.Tests;

/// <summary>The price file: the repository's one is valid and says what every figure is; a bad one is refused, naming the field, the value and the rule.</summary>
[Trait("Category", "Unit")]
public partial class CostPriceTableTests
{
    private static readonly string RepoFile = Path.Combine(Repo.Root(), "pricing", "azure-storage-prices.json");

    [GeneratedRegex(@"^\s*""(\w+)"":", RegexOptions.Multiline)]
    private static partial Regex Field();

    [Fact]
    public void TheRepositoryFileIsTheBuiltInTableAndEveryFigureSaysWhatItIsAndWhereItCameFrom()
    {
        var (table, errors) = PriceTableReader.Load(RepoFile, "--prices");
        Assert.Empty(errors);
        Assert.Equal(table! with { File = PriceTableReader.BuiltInName }, PriceTableReader.BuiltIn);
        Assert.Equal(PriceTable.PerBatch, table!.EntityGroupTransactionBilling);
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}$", table.ReadOn);
        Assert.Contains("2024-07-26", table.Source);   // the date of the page the blob figures are from

        // Every field is preceded by a // comment saying what it is.
        string[] lines = File.ReadAllLines(RepoFile);
        var fields = Field().Matches(string.Join('\n', lines)).Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(14, fields.Count);   // 12 required, the optional Flex Consumption line storagebench plan prices compute with, and the optional egress price
        foreach (string field in fields)
        {
            int at = Array.FindIndex(lines, l => l.TrimStart().StartsWith($"\"{field}\":", StringComparison.Ordinal));
            Assert.True(lines[at - 1].TrimStart().StartsWith("//", StringComparison.Ordinal), $"{field} has no comment above it");
        }
    }

    [Theory]
    [InlineData("\"tableTransactionsPer10k\": 0.00036", "\"tableTransactionsPer10k\": -1",
        "tableTransactionsPer10k: -1 must be a number of 0 or more: the price of 10,000 table transactions, in the table's currency")]
    [InlineData("\"blobWriteOperationsPer10k\": 0.055", "\"blobWriteOperationsPer10k\": \"cheap\"",
        "blobWriteOperationsPer10k: \"cheap\" must be a number of 0 or more: the price of 10,000 blob write operations (Put Block, Put Block List), in the table's currency")]
    [InlineData("\"currency\": \"USD\"", "\"currency\": \"dollars\"", "currency: \"dollars\" must be an ISO 4217 currency code of three capital letters, e.g. USD")]
    [InlineData("\"readOn\": \"2026-11-23\"", "\"readOn\": \"2999-01-01\"", "readOn: \"2999-01-01\" must be the date the prices were read, as yyyy-MM-dd, not in the future")]
    [InlineData("\"entityGroupTransactionBilling\": \"perBatch\"", "\"entityGroupTransactionBilling\": \"perRow\"",
        "entityGroupTransactionBilling: \"perRow\" must be \"perBatch\" (an entity group transaction is one transaction, as Azure documents) or \"perEntity\" (one per entity in it)")]
    [InlineData("\"blobStoragePerGbMonth\": 0.0208,", "",
        "blobStoragePerGbMonth: (missing) is required: a number of 0 or more: the price of 1 GB of hot blob data for a month, in the table's currency")]
    [InlineData("\"region\":", "\"regoin\": \"x\", \"region\":", "regoin: (unknown field) is not a field of a price table; did you mean region? the known fields are")]
    [InlineData("\"currency\": \"USD\",", "\"currency\": \"USD\"", "(price table): (json) is not valid JSON: line")]
    public void ABadFieldIsRefusedNamingTheFieldTheValueAndTheRule(string good, string bad, string error)
    {
        string text = File.ReadAllText(RepoFile);
        Assert.Contains(good, text);

        var (table, errors) = PriceTableReader.Parse(text.Replace(good, bad), "bad.json");

        Assert.Null(table);
        Assert.Contains(errors, e => e.ToString().StartsWith(error, StringComparison.Ordinal));
    }

    [Fact]
    public void TheOptionWinsOverTheSettingWhichWinsOverTheBuiltInTable()
    {
        string dir = Directory.CreateTempSubdirectory("prices").FullName;
        string option = Path.Combine(dir, "option.json"), setting = Path.Combine(dir, "setting.json");
        string text = File.ReadAllText(RepoFile);
        File.WriteAllText(option, text.Replace("\"currency\": \"USD\"", "\"currency\": \"EUR\""));
        File.WriteAllText(setting, text.Replace("\"currency\": \"USD\"", "\"currency\": \"GBP\""));
        string? Set(string name) => name == PriceTableReader.Setting ? setting : null;

        Assert.Equal(("EUR", option), Currency(PriceTableReader.Resolve(option, "--prices", Set)));
        Assert.Equal(("GBP", setting), Currency(PriceTableReader.Resolve(Set)));
        Assert.Equal(("USD", PriceTableReader.BuiltInName), Currency(PriceTableReader.Resolve(_ => null)));
        var (missing, errors) = PriceTableReader.Resolve(Path.Combine(dir, "nope.json"), "--prices", Set);
        Assert.Null(missing);
        Assert.StartsWith($"--prices: \"{Path.Combine(dir, "nope.json")}\" cannot be read: ", errors.Single().ToString());
    }

    private static (string, string) Currency((PriceTable? Table, IReadOnlyList<Engine.Spec.ValidationError> Errors) resolved) =>
        (resolved.Table!.Currency, resolved.Table.File);
}

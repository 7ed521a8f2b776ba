using StorageBench.Engine.Workloads.TableInsert;
using System.Reflection;
using System.Text.Json;
using CsCheck;
using StorageBench.Engine;
using StorageBench.Engine.Spec;

namespace StorageBench.Tests;

/// <summary>
/// A misspelled spec field is refused and names the field meant, as a misspelled option does; field names are
/// case-sensitive, so "entitycount" is refused with "did you mean entityCount?", never read as it.
/// </summary>
[Trait("Category", "Unit")]
public class SpecFieldTypoTests
{
    private static readonly string[] TableFields = [.. typeof(TableInsertSpec).GetProperties(BindingFlags.Public | BindingFlags.Instance)
        .Where(p => p.CanWrite).Select(p => JsonNamingPolicy.CamelCase.ConvertName(p.Name))];

    private static IReadOnlyList<ValidationError> Refused(string field)
    {
        var (spec, errors) = RunSpecParser.Parse($$"""{ "scenario": "s", "tableInsert": { "{{field}}": 10 } }""");
        Assert.Null(spec);
        return errors;
    }

    [Fact]
    public void AFieldInAnotherCaseIsRefusedAndNamesTheFieldMeant() =>
        Gen.Select(Gen.Int[0, TableFields.Length - 1], Gen.Bool.Array[1, 30]).Sample((index, flips) =>
        {
            string field = TableFields[index];
            string cased = new([.. field.Select((c, i) => flips[i % flips.Length] ? (char.IsUpper(c) ? char.ToLowerInvariant(c) : char.ToUpperInvariant(c)) : c)]);
            if (cased == field)
            {
                return;
            }
            var e = Assert.Single(Refused(cased));
            Assert.Equal($"tableInsert.{cased}: (unknown field) is not a field of tableInsert: field names are case-sensitive; did you mean {field}?", e.ToString());
        });

    [Fact]
    public void OneEditFromAFieldIsRefusedWithTheNearestFieldSuggested() =>
        Gen.Select(Gen.Int[0, TableFields.Length - 1], Gen.Int[0, 99], Gen.Int[0, 2], Gen.Char['a', 'z']).Sample((index, at, edit, letter) =>
        {
            string field = TableFields[index];
            int i = at % field.Length;
            string typo = edit switch
            {
                0 => field.Remove(i, 1),
                1 => field.Insert(i, letter.ToString()),
                _ => i + 1 < field.Length ? field[..i] + field[i + 1] + field[i] + field[(i + 2)..] : field[..^1] + letter,
            };
            if (TableFields.Any(f => string.Equals(f, typo, StringComparison.OrdinalIgnoreCase)) || typo.Length < 4)
            {
                return;
            }
            var e = Assert.Single(Refused(typo));
            var suggested = System.Text.RegularExpressions.Regex.Match(e.Rule, "did you mean (\\w+)\\?");
            Assert.True(suggested.Success, e.ToString());
            Assert.Contains(suggested.Groups[1].Value, TableFields);
            Assert.True(Nearest.Distance(typo, suggested.Groups[1].Value) <= Nearest.Distance(typo, field), e.ToString());
        });

    [Fact]
    public void ANameFarFromEveryFieldListsTheFieldsInstead()
    {
        var e = Assert.Single(Refused("frobnicate"));
        Assert.DoesNotContain("did you mean", e.Rule);
        Assert.Contains("the known fields are entityCount,", e.Rule);
    }
}

using System.Diagnostics;
using System.Text;
using System.Text.Json.Nodes;
using CsCheck;
using StorageBench.Engine.Spec;

namespace StorageBench.Tests;

/// <summary>
/// Errors stay small (issue 43): whatever a body holds, an answer lists at most <see cref="ValidationError.MaxListed"/> errors
/// and a count of the rest, each field and value cut to a short prefix, the known fields once per object; a 0.8 MB body of
/// 80,000 unknown fields (which once got a 57.6 MB answer after 23–46 s) is refused with an answer under 64 KB.
/// </summary>
[Trait("Category", "Unit")]
public class SmallErrorAnswersTests(Xunit.Abstractions.ITestOutputHelper output)
{
    /// <summary>{"f00000":1,"f00001":1,…}: <paramref name="fields"/> unknown fields, about 10 bytes each.</summary>
    private static string UnknownFields(int fields, string prefix = "f") =>
        "{" + string.Join(",", Enumerable.Range(0, fields).Select(i => $"\"{prefix}{i:D5}\":1")) + "}";

    [Fact]
    public async Task An80000FieldBodyIsRefusedWith400AndAnAnswerUnder64KbListingTheKnownFieldsOnce()
    {
        await using var serve = await EngineLessServe.StartAsync();
        var http = serve.Http;
        string body = UnknownFields(80_000);
        Assert.InRange(body.Length, 800_000, 900_000);
        // Warmed on a small bad body first, so what is timed is the large one, not the JIT.
        (await http.PostAsync("api/runs", new StringContent(UnknownFields(30), Encoding.UTF8, "application/json"))).Dispose();

        var clock = Stopwatch.StartNew();
        using var response = await http.PostAsync("api/runs", new StringContent(body, Encoding.UTF8, "application/json"));
        string answer = await response.Content.ReadAsStringAsync();
        clock.Stop();

        Assert.Equal(400, (int)response.StatusCode);
        Assert.True(answer.Length < 64 * 1024, $"the answer is {answer.Length:N0} characters");
        var errors = JsonNode.Parse(answer)!["errors"]!.AsArray();
        Assert.Equal(ValidationError.MaxListed + 1, errors.Count);
        Assert.Equal(("(spec)", $"{80_000 - ValidationError.MaxListed:N0} more errors"), ((string?)errors[^1]!["field"], (string?)errors[^1]!["value"]));
        // Listed once: in the first error's rule, hence its message, and the answer's message that joins them.
        Assert.Equal(3, answer.Split("the known fields are").Length - 1);
        output.WriteLine($"80,000 unknown fields ({body.Length:N0} bytes): 400 in {clock.Elapsed.TotalMilliseconds:N0} ms, answer {answer.Length:N0} characters");
        // Bounded work, not the machine's speed: once 23–46 s, now a linear pass. Generous for a loaded machine.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), $"answered in {clock.Elapsed.TotalMilliseconds:N0} ms");
    }

    [Fact]
    public void AnyListOfErrorsIsCappedAndEveryFieldAndValueCutToAShortPrefix()
    {
        var error = Gen.Select(Gen.String[0, 500], Gen.String[0, 500], Gen.String[0, 100]).Select((f, v, r) => new ValidationError(f, v, r));
        error.List[0, 200].Sample(errors =>
        {
            var capped = ValidationError.Capped(errors);
            Assert.True(capped.Count <= ValidationError.MaxListed + 1);
            Assert.Equal(errors.Take(ValidationError.MaxListed), capped.Take(ValidationError.MaxListed));
            Assert.Equal(errors.Count > ValidationError.MaxListed, capped.Count == ValidationError.MaxListed + 1);
            Assert.All(capped, e => Assert.True(e.Field.Length <= ValidationError.MaxShownChars && e.Value.Length <= ValidationError.MaxShownChars));
        });
    }

    [Fact]
    public void ASpecWithManyLongUnknownFieldsGetsAShortListNamingTheFirstAndCountingTheRest()
    {
        Gen.Int[1, 3000].Sample(n =>
        {
            string json = UnknownFields(n, "x" + new string('y', 200));
            var (spec, errors) = RunSpecParser.Parse(json);
            Assert.Null(spec);
            Assert.Equal(Math.Min(n, ValidationError.MaxListed) + (n > ValidationError.MaxListed ? 1 : 0), errors.Count);
            Assert.True(string.Join("\n", errors).Length < 32 * 1024);
            Assert.True(errors.Count(e => e.Rule.Contains("the known fields are", StringComparison.Ordinal)) <= 1);
        }, iter: 20);
    }
}

using System.Reflection;

namespace StorageBench.Tests;

/// <summary>
/// Every test class says what it needs, so `--filter Category=Unit` is the fast loop: Unit (in-process, no Azurite,
/// no other process), Azurite (needs the Azurite fixture), EndToEnd (whole runs through the CLI or the orchestrator,
/// a browser, a terminal, or an outside tool such as Bicep, node or a build).
/// </summary>
[Trait("Category", "Unit")]
public class TestCategoryTests
{
    private static readonly string[] Categories = ["Unit", "Azurite", "EndToEnd"];

    private static IEnumerable<Type> TestClasses() => typeof(TestCategoryTests).Assembly.GetTypes()
        .Where(t => t.IsClass && !t.IsAbstract && t.GetMethods().Any(m => m.GetCustomAttributes<FactAttribute>(inherit: true).Any()));

    private static string[] CategoriesOf(Type type) => [.. type.GetCustomAttributesData()
        .Where(a => a.AttributeType == typeof(TraitAttribute) && a.ConstructorArguments[0].Value as string == "Category")
        .Select(a => (string)a.ConstructorArguments[1].Value!)];

    [Fact]
    public void EveryTestClassHasExactlyOneKnownCategory()
    {
        var wrong = TestClasses()
            .Select(t => (t.Name, Categories: CategoriesOf(t)))
            .Where(c => c.Categories.Length != 1 || !Categories.Contains(c.Categories[0]))
            .Select(c => $"{c.Name}: [{string.Join(", ", c.Categories)}]")
            .ToList();
        Assert.True(wrong.Count == 0, $"give each test class one [Trait(\"Category\", …)] of {string.Join(", ", Categories)}: {string.Join("; ", wrong)}");
    }

    [Fact]
    public void NoUnitTestClassTakesTheAzuriteFixture()
    {
        var wrong = TestClasses()
            .Where(t => CategoriesOf(t).Contains("Unit") && t.GetConstructors().Any(c => c.GetParameters().Any(p => p.ParameterType == typeof(AzuriteFixture))))
            .Select(t => t.Name)
            .ToList();
        Assert.Empty(wrong);
    }
}

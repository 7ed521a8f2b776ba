using System.Reflection;
using Microsoft.Azure.Functions.Worker;
using StorageBench.Functions;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// The activities are declared once (<see cref="ActivityList"/>): the Function App has exactly one activity function per entry,
/// under its name, taking its input type and returning its output type, as the local task hub binds it.
/// </summary>
[Trait("Category", "Unit")]
public class ActivityBindingTests
{
    private static readonly MethodInfo[] Functions = [.. typeof(ActivityFunctions).GetMethods().Where(m => m.GetCustomAttribute<FunctionAttribute>() is not null)];

    [Fact]
    public void EveryActivityOfTheListIsAFunctionOfItsNameAndTypesAndNoOtherIs()
    {
        var checker = new FunctionChecker();
        foreach (var activity in ActivityList.All)
        {
            activity.BindTo(checker);
        }
        Assert.Empty(checker.Problems);
        Assert.Equal(ActivityList.All.Select(a => a.Name).Order(StringComparer.Ordinal), Functions.Select(f => f.GetCustomAttribute<FunctionAttribute>()!.Name).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void EveryActivityNameIsInTheListOnce()
    {
        var names = typeof(ActivityNames).GetFields(BindingFlags.Public | BindingFlags.Static).Where(f => f.IsLiteral).Select(f => (string)f.GetRawConstantValue()!);
        Assert.Equal(names.Order(StringComparer.Ordinal), ActivityList.All.Select(a => a.Name).Order(StringComparer.Ordinal));
    }

    private sealed class FunctionChecker : IActivityBinder
    {
        public List<string> Problems { get; } = [];

        public void Bind<TIn, TOut>(TypedActivity<TIn, TOut> activity)
        {
            var function = Functions.SingleOrDefault(f => f.GetCustomAttribute<FunctionAttribute>()!.Name == activity.Name);
            if (function is null)
            {
                Problems.Add($"{activity.Name}: no activity function of that name");
                return;
            }
            var trigger = function.GetParameters().SingleOrDefault(p => p.GetCustomAttribute<ActivityTriggerAttribute>() is not null);
            if (trigger?.ParameterType != typeof(TIn))
            {
                Problems.Add($"{activity.Name}: the function takes {trigger?.ParameterType.Name ?? "no trigger"}, the list {typeof(TIn).Name}");
            }
            if (function.ReturnType != typeof(Task<TOut>))
            {
                Problems.Add($"{activity.Name}: the function returns {function.ReturnType.Name}, the list Task<{typeof(TOut).Name}>");
            }
        }
    }
}

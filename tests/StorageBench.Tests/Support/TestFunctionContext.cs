using Microsoft.Azure.Functions.Worker;

namespace StorageBench.Tests;

/// <summary>What the isolated worker hands a function: here only its invocation token matters.</summary>
internal sealed class TestFunctionContext(CancellationToken token) : FunctionContext
{
    public override CancellationToken CancellationToken => token;

    public override string InvocationId => "test";

    public override string FunctionId => "test";

    public override TraceContext TraceContext => throw new NotSupportedException();

    public override BindingContext BindingContext => throw new NotSupportedException();

    public override RetryContext RetryContext => throw new NotSupportedException();

    public override IServiceProvider InstanceServices { get; set; } = null!;

    public override FunctionDefinition FunctionDefinition => throw new NotSupportedException();

    public override IDictionary<object, object> Items { get; set; } = new Dictionary<object, object>();

    public override IInvocationFeatures Features => throw new NotSupportedException();
}

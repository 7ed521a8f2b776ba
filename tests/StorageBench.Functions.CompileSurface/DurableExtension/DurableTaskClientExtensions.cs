// Mirrors Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5: namespace Microsoft.Azure.Functions.Worker.
// Transcribed from: Azure/azure-functions-durable-extension src/Worker.Extensions.DurableTask/DurableTaskClientExtensions.cs
// (commit 1287f6b1) and HttpManagementPayload.cs (commit a7c6d694). With no request, the payload's URLs come from the
// host-provided base URL of the [DurableClient] binding. COMPILE-ONLY: only the members the app reads.
using Microsoft.Azure.Functions.Worker.Http;
using Microsoft.DurableTask.Client;
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

public static class DurableTaskClientExtensions
{
    public static HttpManagementPayload CreateHttpManagementPayload(this DurableTaskClient client, string instanceId, HttpRequestData? request = null) =>
        throw new NotSupportedException(CompileOnly.Message);
}

public class HttpManagementPayload
{
    public string? StatusQueryGetUri => throw new NotSupportedException(CompileOnly.Message);

    public string? SendEventPostUri => throw new NotSupportedException(CompileOnly.Message);

    public string? TerminatePostUri => throw new NotSupportedException(CompileOnly.Message);

    public string? PurgeHistoryDeleteUri => throw new NotSupportedException(CompileOnly.Message);

    public string? SuspendPostUri => throw new NotSupportedException(CompileOnly.Message);

    public string? ResumePostUri => throw new NotSupportedException(CompileOnly.Message);
}

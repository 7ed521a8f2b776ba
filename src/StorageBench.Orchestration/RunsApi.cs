using System.Text.Json;
using System.Text.Json.Nodes;
using StorageBench.Results;

namespace StorageBench.Orchestration;

/// <summary>An HTTP answer without an HTTP framework: status code and JSON body.</summary>
public sealed record ApiResponse(int StatusCode, JsonNode Body)
{
    public string Json => Body.ToJsonString(JsonDefaults.Options);
}

/// <summary>
/// The HTTP contract of the runs API, independent of the host: the Function App's HTTP triggers and
/// the local `storagebench serve` both forward to it.
/// <list type="bullet">
/// <item>POST /api/runs with a run spec → 202 {id, statusQueryGetUri}, or 400 {errors:[{field, value, rule, message}]} with nothing started.</item>
/// <item>GET /api/runs/{id} → 404 unknown; 202 while pending or running (with progress); 200 with the summary as result when done.</item>
/// </list>
/// </summary>
public sealed class RunsApi(IRunOrchestrationClient client, TimeProvider time, string host)
{
    public async Task<ApiResponse> StartAsync(string body, Uri baseUri, CancellationToken ct)
    {
        var started = await new RunStarter(client, time).StartAsync(body, host, null, ct).ConfigureAwait(false);
        if (!started.Started)
        {
            var errors = new JsonArray([.. started.Errors.Select(e => (JsonNode)new JsonObject
            {
                ["field"] = e.Field,
                ["value"] = e.Value,
                ["rule"] = e.Rule,
                ["message"] = e.ToString(),
            })]);
            return new ApiResponse(400, new JsonObject { ["errors"] = errors });
        }
        return new ApiResponse(202, new JsonObject
        {
            ["id"] = started.RunId,
            ["statusQueryGetUri"] = new Uri(baseUri, $"api/runs/{started.RunId}").ToString(),
        });
    }

    public async Task<ApiResponse> GetAsync(string id, CancellationToken ct)
    {
        var state = await client.GetStateAsync(id, ct).ConfigureAwait(false);
        if (state is null)
        {
            return new ApiResponse(404, new JsonObject { ["error"] = $"no run with id \"{id}\"" });
        }
        var body = new JsonObject
        {
            ["id"] = state.InstanceId,
            ["runtimeStatus"] = state.RuntimeStatus,
            ["createdUtc"] = state.CreatedUtc,
            ["lastUpdatedUtc"] = state.LastUpdatedUtc,
            ["progress"] = state.CustomStatusJson is null ? null : JsonNode.Parse(state.CustomStatusJson),
        };
        if (state.FailureMessage is not null)
        {
            body["failure"] = state.FailureMessage;
        }
        bool done = state.RuntimeStatus is RuntimeStatus.Completed or RuntimeStatus.Failed;
        if (state.OutputJson is not null)
        {
            body["result"] = JsonNode.Parse(state.OutputJson);
        }
        return new ApiResponse(done ? 200 : 202, body);
    }
}

using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using StorageBench.Orchestration;

namespace StorageBench.Cli;

/// <summary>
/// The runs API (POST /api/runs, GET /api/runs/{id}) on loopback, for a machine without Azure
/// Functions Core Tools. Loopback only and without function keys: it is a local tool, not a service.
/// </summary>
public sealed class LocalApiServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private LocalApiServer(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
    }

    public Uri Address { get; }

    public static async Task<LocalApiServer> StartAsync(RunsApi api, int port, CancellationToken ct)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, port));
        var app = builder.Build();
        app.MapPost("/api/runs", async (HttpRequest request, CancellationToken rct) =>
        {
            using var reader = new StreamReader(request.Body);
            string body = await reader.ReadToEndAsync(rct);
            var baseUri = new Uri($"{request.Scheme}://{request.Host}/");
            return Send(await api.StartAsync(body, baseUri, rct));
        });
        app.MapGet("/api/runs/{id}", async (string id, CancellationToken rct) => Send(await api.GetAsync(id, rct)));
        await app.StartAsync(ct);
        var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        return new LocalApiServer(app, new Uri(address));
    }

    public Task WaitForShutdownAsync(CancellationToken ct) => HostingAbstractionsHostExtensions.WaitForShutdownAsync(_app, ct);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    private static IResult Send(ApiResponse response) => Microsoft.AspNetCore.Http.Results.Content(response.Json, "application/json", statusCode: response.StatusCode);
}

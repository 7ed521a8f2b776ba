using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace StorageBench.Cli;

/// <summary>A minimal, quiet Kestrel app on 127.0.0.1 (port 0 = a free one) that knows the address it really bound.</summary>
public sealed class LoopbackServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private LoopbackServer(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
    }

    public Uri Address { get; }

    public static async Task<LoopbackServer> StartAsync(int port, Action<WebApplication> map, CancellationToken ct = default)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, port));
        var app = builder.Build();
        map(app);
        try
        {
            await app.StartAsync(ct).ConfigureAwait(false);
        }
        catch (IOException ex) when (ex.InnerException is Microsoft.AspNetCore.Connections.AddressInUseException)
        {
            await app.DisposeAsync().ConfigureAwait(false);
            throw PortInUse(port, ex);
        }
        var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        return new LoopbackServer(app, new Uri(address));
    }

    /// <summary>
    /// Fails with the busy-port line when <paramref name="port"/> (0: any free one, never busy) cannot be bound on 127.0.0.1 now,
    /// so a command checks it before it starts anything (Azurite, the hub store) that would only be stopped again.
    /// </summary>
    public static void EnsureFree(int port)
    {
        if (port == 0)
        {
            return;
        }
        using var probe = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        try
        {
            probe.Bind(new IPEndPoint(IPAddress.Loopback, port));
        }
        catch (System.Net.Sockets.SocketException ex) when (ex.SocketErrorCode == System.Net.Sockets.SocketError.AddressAlreadyInUse)
        {
            throw PortInUse(port, ex);
        }
    }

    private static LocalSetupException PortInUse(int port, Exception inner) =>
        new($"port {port} on 127.0.0.1 is in use (another storagebench serve, or another program): pass --port N for another one, or --port 0 for a free one", inner);

    public Task WaitForShutdownAsync(CancellationToken ct) => HostingAbstractionsHostExtensions.WaitForShutdownAsync(_app, ct);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync().ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
    }
}

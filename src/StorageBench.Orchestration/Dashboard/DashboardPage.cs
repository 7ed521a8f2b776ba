namespace StorageBench.Orchestration.Dashboard;

/// <summary>
/// The dashboard (dashboard.html, embedded in this assembly): one self-contained page — no CDN, no library — over the
/// runs API, served by storagebench serve at / and by the Function App's Dashboard function.
/// </summary>
public static class DashboardPage
{
    private static readonly Lazy<string> Html = new(() =>
    {
        using var stream = typeof(DashboardPage).Assembly.GetManifestResourceStream("StorageBench.Orchestration.Dashboard.html")
            ?? throw new InvalidOperationException("the dashboard page is not embedded in the assembly");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    });

    public static ApiResponse Response() => ApiResponse.Page(Html.Value);
}

using System.Globalization;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>x-ms-date values: one string per second, shared by every request in it.</summary>
internal static class RequestDate
{
    private sealed record Stamp(long Second, string Value);

    private static volatile Stamp _current = new(0, "");

    public static string Now()
    {
        var now = DateTimeOffset.UtcNow;
        long second = now.ToUnixTimeSeconds();
        var current = _current;
        if (current.Second != second)
        {
            _current = current = new Stamp(second, now.ToString("r", CultureInfo.InvariantCulture));
        }
        return current.Value;
    }
}

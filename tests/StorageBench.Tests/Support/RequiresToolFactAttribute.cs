namespace StorageBench.Tests;

/// <summary>
/// A fact that needs a program from a Debian package (chromium, tmux). scripts/test.sh installs them
/// (scripts/install.sh --test-tools); only when that was impossible is the test skipped, and the
/// runner prints why. xUnit 2 decides skips at discovery, hence an attribute.
/// </summary>
public sealed class RequiresToolFactAttribute : FactAttribute
{
    public RequiresToolFactAttribute(string program)
    {
        if (Find(program) is null)
        {
            Skip = $"{program} is not installed and scripts/install.sh --test-tools could not install it (Debian package '{program}')";
        }
    }

    /// <summary>The program's full path on PATH, or null.</summary>
    public static string? Find(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => Path.Combine(dir, program)).FirstOrDefault(File.Exists);
}

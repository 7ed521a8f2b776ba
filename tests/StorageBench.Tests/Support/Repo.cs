namespace StorageBench.Tests;

/// <summary>The repository the tests run in: its specs, docs and scripts are what they check.</summary>
internal static class Repo
{
    public static string Root()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "package.json")) && Directory.Exists(Path.Combine(dir.FullName, "specs")))
            {
                return dir.FullName;
            }
        }
        throw new DirectoryNotFoundException("repository root not found above " + AppContext.BaseDirectory);
    }
}

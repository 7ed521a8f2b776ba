namespace StorageBench.Cli;

/// <summary>
/// Reads a spec file named on the command line. Whatever the path is — empty, a directory, unreadable, missing, not a
/// valid path — the answer is one line naming the option, the path and what is wrong, never an exception.
/// </summary>
public static class SpecFile
{
    /// <summary>The file's text, or null and the line to print (starting "error: ").</summary>
    public static async Task<(string? Text, string? Error)> ReadAsync(string option, string path, CancellationToken ct)
    {
        string Error(string rule) => $"error: {option}: \"{path}\" {rule}";
        if (string.IsNullOrWhiteSpace(path))
        {
            return (null, Error("is not a file name; give the path of a run spec (a JSON file)"));
        }
        if (Directory.Exists(path))
        {
            return (null, Error("is a directory; give the path of a run spec (a JSON file) in it"));
        }
        try
        {
            return (await File.ReadAllTextAsync(path, ct).ConfigureAwait(false), null);
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            return (null, Error("cannot be read: there is no such file"));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException or System.Security.SecurityException)
        {
            return (null, Error($"cannot be read: {ex.Message}"));
        }
    }
}

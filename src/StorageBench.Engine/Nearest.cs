namespace StorageBench.Engine;

/// <summary>
/// "Did you mean …?": the known name nearest a misspelled one, for the command line's options and commands and the
/// spec's fields alike.
/// </summary>
public static class Nearest
{
    /// <summary>The nearest name within a third of its length in edits (at least one), else one the token extends or begins ("--spec-file": --spec).</summary>
    public static string? Closest(string token, IEnumerable<string> names)
    {
        var candidates = names.Select(n => (Name: n, Distance: Distance(token, n))).OrderBy(c => c.Distance).ToList();
        return candidates.Where(c => c.Distance <= Math.Max(1, c.Name.TrimStart('-').Length / 3)).Select(c => c.Name).FirstOrDefault()
            ?? candidates.Where(c => token.TrimStart('-').Length >= 2 && c.Name.TrimStart('-').Length >= 2
                && (token.StartsWith(c.Name, StringComparison.Ordinal) || c.Name.StartsWith(token, StringComparison.Ordinal))).Select(c => c.Name).FirstOrDefault();
    }

    /// <summary>Edit distance, adjacent transpositions counting as one edit ("--spce" is one from "--spec").</summary>
    public static int Distance(string a, string b)
    {
        var d = new int[a.Length + 1, b.Length + 1];
        for (int i = 0; i <= a.Length; i++)
        {
            d[i, 0] = i;
        }
        for (int j = 0; j <= b.Length; j++)
        {
            d[0, j] = j;
        }
        for (int i = 1; i <= a.Length; i++)
        {
            for (int j = 1; j <= b.Length; j++)
            {
                int cost = a[i - 1] == b[j - 1] ? 0 : 1;
                d[i, j] = Math.Min(Math.Min(d[i - 1, j] + 1, d[i, j - 1] + 1), d[i - 1, j - 1] + cost);
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                {
                    d[i, j] = Math.Min(d[i, j], d[i - 2, j - 2] + 1);
                }
            }
        }
        return d[a.Length, b.Length];
    }
}

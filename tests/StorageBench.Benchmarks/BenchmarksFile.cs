namespace StorageBench.Benchmarks;

/// <summary>
/// How a benchmark run writes BENCHMARKS.md: it replaces only the sections it measured and keeps every other one
/// (sections measured by hand, or by another mode of the script) where it is. A section is a heading line ("## 5. …",
/// "### 5d. …") and what follows it up to the next heading of the same or a higher level; it is known by its heading's
/// first word ("## 5.", "### 5d."), so a section whose title changed still replaces its old self.
/// </summary>
public static class BenchmarksFile
{
    /// <summary>
    /// <paramref name="existing"/> with <paramref name="header"/> (what goes before the first section) in place of its
    /// own, and each section of <paramref name="sections"/> in place of the one of the same key; a section the file
    /// does not have goes after the last section it replaced or added (at the end when there is none), so a fresh file
    /// gets them in order.
    /// </summary>
    public static string Rewrite(string existing, string header, string sections)
    {
        var kept = Split(Normalize(existing));
        var written = Split(Normalize(sections));
        var result = new List<(string Key, string Text)>(kept.Sections);
        int after = -1;
        foreach (var section in written.Sections)
        {
            int at = result.FindIndex(s => s.Key == section.Key);
            if (at >= 0)
            {
                result[at] = section;
                after = at;
            }
            else
            {
                after = after < 0 ? result.Count : after + 1;
                result.Insert(after, section);
            }
        }
        string head = header.Length > 0 ? Normalize(header) : kept.Header;
        return (head.TrimEnd() + "\n\n" + string.Join("\n", result.Select(s => s.Text.TrimEnd() + "\n"))).TrimStart('\n');
    }

    /// <summary><paramref name="existing"/> with <paramref name="sections"/> in place of those of the same keys; its header stays.</summary>
    public static string Splice(string existing, string sections) => Rewrite(existing, "", sections);

    /// <summary>A section's key: the heading's marks and first word ("## 5.", "### 5d.").</summary>
    public static string KeyOf(string headingLine)
    {
        int space = headingLine.IndexOf(' ');
        int word = headingLine.IndexOf(' ', space + 1);
        return word < 0 ? headingLine.TrimEnd() : headingLine[..word];
    }

    private static string Normalize(string text) => text.Replace("\r\n", "\n", StringComparison.Ordinal);

    /// <summary>The text before the first "## " heading, and the "## " sections (each with its "###" subsections).</summary>
    private static (string Header, List<(string Key, string Text)> Sections) Split(string text)
    {
        var sections = new List<(string Key, string Text)>();
        var lines = text.Split('\n');
        var header = new List<string>();
        List<string>? current = null;
        string key = "";
        foreach (string line in lines)
        {
            if (line.StartsWith("## ", StringComparison.Ordinal))
            {
                if (current is not null)
                {
                    sections.Add((key, string.Join("\n", current)));
                }
                current = [line];
                key = KeyOf(line);
            }
            else
            {
                (current ?? header).Add(line);
            }
        }
        if (current is not null)
        {
            sections.Add((key, string.Join("\n", current)));
        }
        return (string.Join("\n", header), sections);
    }

    /// <summary>
    /// Replaces the part of a markdown file that starts with the heading line <paramref name="heading"/> ("### 5d. ") and
    /// runs to the next heading of the same or a higher level; a missing "### 5d." goes at the end of its section 5.
    /// </summary>
    public static string Replace(string existing, string heading, string replacement)
    {
        string[] ends = heading.StartsWith("###", StringComparison.Ordinal) ? ["\n## ", "\n### "] : ["\n## "];
        int at = existing.IndexOf("\n" + heading, StringComparison.Ordinal);
        if (at < 0 && heading.StartsWith("###", StringComparison.Ordinal) && existing.IndexOf("\n## 5. ", StringComparison.Ordinal) is int parent and >= 0)
        {
            int next = existing.IndexOf("\n## ", parent + 1, StringComparison.Ordinal);
            at = next < 0 ? existing.Length : next;
            return existing[..at].TrimEnd() + "\n\n" + replacement.TrimEnd() + "\n" + existing[at..];
        }
        if (at < 0)
        {
            return existing.TrimEnd() + "\n\n" + replacement;
        }
        int end = ends.Select(e => existing.IndexOf(e, at + 1, StringComparison.Ordinal)).Where(i => i >= 0).DefaultIfEmpty(existing.Length).Min();
        return existing[..(at + 1)] + replacement.TrimEnd() + "\n" + existing[end..];
    }
}

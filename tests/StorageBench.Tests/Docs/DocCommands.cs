namespace StorageBench.Tests;

/// <summary>The shell commands in the fenced bash blocks of the repository's Markdown files.</summary>
internal static class DocCommands
{
    public sealed record Command(string File, int Line, string Text)
    {
        public string Where => $"{File}:{Line}";
    }

    private static readonly string[] Skipped = ["node_modules", "bin", "obj", "out", ".build", "TestResults", ".git"];

    public static IReadOnlyList<Command> Extract(string root)
    {
        var commands = new List<Command>();
        foreach (string path in Directory.EnumerateFiles(root, "*.md", SearchOption.AllDirectories)
                     .Where(p => !Path.GetRelativePath(root, p).Split(Path.DirectorySeparatorChar).Any(Skipped.Contains))
                     .Order(StringComparer.Ordinal))
        {
            string file = Path.GetRelativePath(root, path);
            string[] lines = File.ReadAllLines(path);
            bool shell = false, inBlock = false;
            for (int i = 0; i < lines.Length; i++)
            {
                string line = lines[i].Trim();
                if (line.StartsWith("```", StringComparison.Ordinal))
                {
                    shell = !inBlock && line[3..].Trim() is "bash" or "sh" or "shell";
                    inBlock = !inBlock;
                    continue;
                }
                if (!shell || line.Length == 0 || line.StartsWith('#'))
                {
                    continue;
                }
                int first = i;
                while (line.EndsWith('\\') && i + 1 < lines.Length)
                {
                    line = line[..^1] + " " + lines[++i].Trim();
                }
                commands.Add(new Command(file, first + 1, line));
            }
        }
        return commands;
    }
}

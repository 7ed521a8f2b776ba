using System.Text.RegularExpressions;

namespace StorageBench.Engine;

/// <summary>
/// Azure SDK error messages made fit for a one-line error in a summary or on a console: the
/// service's status, code and first sentence, without response dumps or the SDK's retry advice.
/// </summary>
public static partial class ErrorText
{
    private const string RetryAdvice = " Retry settings can be adjusted in ClientOptions.Retry or by configuring a custom retry policy in ClientOptions.RetryPolicy.";

    [GeneratedRegex(@"<Code>([^<]+)</Code>(?:\s*<Message>([^\r\n<]+))?|""code""\s*:\s*""([^""]+)""(?:.*?""value""\s*:\s*""([^""\\]+))?", RegexOptions.Singleline)]
    private static partial Regex ServiceError();

    [GeneratedRegex(@"\s+")]
    private static partial Regex Whitespace();

    /// <summary>
    /// "Retry failed after 4 tries. Retry settings … (reason) (reason)" becomes "Retry failed after 4
    /// tries: reason" (repeats once); "Service request failed.\nStatus: 403 …\n\nContent: … Headers: …"
    /// becomes "Service request failed. Status: 403 (Forbidden) AuthorizationFailure: first sentence".
    /// </summary>
    public static string Compact(string message)
    {
        int at = message.IndexOf(RetryAdvice, StringComparison.Ordinal);
        if (at < 0)
        {
            return CompactServiceError(message);
        }
        var reasons = new List<string>();
        foreach (string reason in Groups(message[(at + RetryAdvice.Length)..]).Select(CompactServiceError))
        {
            if (!reasons.Contains(reason))
            {
                reasons.Add(reason);
            }
        }
        string head = message[..at].TrimEnd('.');
        return reasons.Count == 0 ? head : $"{head}: {string.Join("; ", reasons)}";
    }

    /// <summary>The top-level "( … )" groups of the text: one per inner exception of an AggregateException.</summary>
    private static IEnumerable<string> Groups(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (text[i] != '(')
            {
                continue;
            }
            int depth = 0, j = i;
            for (; j < text.Length; j++)
            {
                depth += text[j] == '(' ? 1 : text[j] == ')' ? -1 : 0;
                if (depth == 0)
                {
                    break;
                }
            }
            yield return text[(i + 1)..Math.Min(j, text.Length)];
            i = j;
        }
    }

    private static string CompactServiceError(string message)
    {
        int content = message.IndexOf("\nContent:", StringComparison.Ordinal);
        int headers = message.IndexOf("\nHeaders:", StringComparison.Ordinal);
        int cut = content >= 0 ? content : headers;
        if (cut < 0)
        {
            return message;
        }
        var lines = message[..cut].Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Where(l => !l.StartsWith("RequestId:", StringComparison.Ordinal) && !l.StartsWith("Time:", StringComparison.Ordinal)).ToList();
        if (!lines.Any(l => l.StartsWith("ErrorCode:", StringComparison.Ordinal)) && content >= 0
            && ServiceError().Match(message, content) is { Success: true } m)
        {
            string code = m.Groups[1].Success ? m.Groups[1].Value : m.Groups[3].Value;
            string text = m.Groups[2].Success ? m.Groups[2].Value : m.Groups[4].Value;
            lines.Add(text.Length > 0 ? $"{code}: {text.Trim()}" : code);
        }
        return Whitespace().Replace(string.Join(' ', lines), " ");
    }
}

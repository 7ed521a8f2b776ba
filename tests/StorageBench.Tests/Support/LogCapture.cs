using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace StorageBench.Tests;

/// <summary>One log entry as the product wrote it: its level, event id, category, formatted message and exception.</summary>
public sealed record LogEntry(LogLevel Level, int EventId, string Category, string Message, Exception? Exception);

/// <summary>
/// A capturing ILoggerProvider: every entry the product logs, at every level, kept in order for a test to read. Hand it to
/// the product as <see cref="Factory"/> (a real LoggerFactory with this provider added).
/// </summary>
public sealed class LogCapture : ILoggerProvider
{
    private readonly ConcurrentQueue<LogEntry> _entries = new();

    public LogCapture()
    {
        Factory = LoggerFactory.Create(b => b.SetMinimumLevel(LogLevel.Trace).AddProvider(this));
    }

    public ILoggerFactory Factory { get; }

    public IReadOnlyList<LogEntry> Entries => [.. _entries];

    public IReadOnlyList<LogEntry> WithId(int eventId) => [.. _entries.Where(e => e.EventId == eventId)];

    public ILogger CreateLogger(string categoryName) => new Capturing(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Capturing(LogCapture capture, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            capture._entries.Enqueue(new LogEntry(logLevel, eventId.Id, category, formatter(state, exception), exception));
    }
}

using Microsoft.Extensions.Logging;

namespace StorageBench.Cli;

/// <summary>
/// `--verbose`'s log: one line per entry on the CLI's stderr — "warn: 2001 StorageBench.Orchestration.BenchmarkActivities:
/// Slice 0 of …", the exception's type, message and stack indented under it. A tiny provider rather than
/// Microsoft.Extensions.Logging.Console, whose background queue writes to the process's console: this writes to the
/// writer the CLI was given (tests read it) and in order with the CLI's own lines.
/// </summary>
public sealed class StderrLog(TextWriter stderr, LogLevel minimum = LogLevel.Information) : ILoggerProvider
{
    /// <summary>
    /// The factory the run's task hub and activities log through. The Durable engine's own categories log every message
    /// and poll at Information: only their warnings are shown, as host.json does in Azure.
    /// </summary>
    public static ILoggerFactory Factory(TextWriter stderr, LogLevel minimum = LogLevel.Information) =>
        LoggerFactory.Create(b => b.SetMinimumLevel(minimum).AddProvider(new StderrLog(stderr, minimum))
            .AddFilter("DurableTask", LogLevel.Warning).AddFilter("Microsoft.DurableTask", LogLevel.Warning));

    public ILogger CreateLogger(string categoryName) => new Writer(stderr, categoryName, minimum);

    public void Dispose()
    {
    }

    private sealed class Writer(TextWriter stderr, string category, LogLevel minimum) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= minimum && logLevel != LogLevel.None;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (!IsEnabled(logLevel))
            {
                return;
            }
            string text = $"{Level(logLevel)}: {eventId.Id} {category}: {formatter(state, exception)}";
            if (exception is not null)
            {
                text += Environment.NewLine + "      " + exception.ToString().ReplaceLineEndings(Environment.NewLine + "      ");
            }
            // Slices log from many threads at once: one entry is written whole.
            lock (stderr)
            {
                stderr.WriteLine(text);
            }
        }

        private static string Level(LogLevel level) => level switch
        {
            LogLevel.Trace => "trce",
            LogLevel.Debug => "dbug",
            LogLevel.Information => "info",
            LogLevel.Warning => "warn",
            LogLevel.Error => "fail",
            _ => "crit",
        };
    }
}

using System.Globalization;
using System.Net;
using System.Text;

namespace StorageBench.Engine.Reports;

/// <summary>A series for a line chart: its name, colour, points, and which y axis it uses.</summary>
public sealed record ChartSeries(string Name, string Color, IReadOnlyList<(double X, double Y)> Points, bool RightAxis = false);

/// <summary>
/// Inline SVG charts for the HTML report: drawn here, so the page needs no script, no library and no
/// network to show them.
/// </summary>
public static class SvgChart
{
    private const int Width = 760, Height = 300, Left = 70, Right = 70, Top = 30, Bottom = 50;
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>A histogram: one bar per bin between its edges.</summary>
    public static string Bars(string id, string title, string xLabel, string yLabel, IReadOnlyList<(double From, double To, double Value)> bins)
    {
        var b = Begin(id, title);
        if (bins.Count == 0)
        {
            return End(b.Append(Empty()));
        }
        double xMin = bins[0].From, xMax = bins[^1].To, yMax = Nice(bins.Max(x => x.Value));
        Axes(b, xMin, xMax, 0, yMax, xLabel, yLabel, null, 0);
        foreach (var (from, to, value) in bins)
        {
            double x0 = X(from, xMin, xMax), x1 = X(to, xMin, xMax), y = Y(value, 0, yMax);
            b.Append(Inv, $"<rect class=\"bar\" x=\"{x0:0.#}\" y=\"{y:0.#}\" width=\"{Math.Max(1, x1 - x0 - 1):0.#}\" height=\"{Top + Plot.H - y:0.#}\" fill=\"#4e79a7\"><title>{from:0.###}–{to:0.###}: {value:0}</title></rect>");
        }
        return End(b);
    }

    /// <summary>Line chart with up to two y axes (left, right), each series with markers.</summary>
    public static string Lines(string id, string title, string xLabel, string leftLabel, string? rightLabel, IReadOnlyList<ChartSeries> series, bool logX = false)
    {
        var b = Begin(id, title);
        var all = series.SelectMany(s => s.Points).ToList();
        if (all.Count == 0)
        {
            return End(b.Append(Empty()));
        }
        Func<double, double> fx = logX ? v => Math.Log2(Math.Max(v, 1e-9)) : v => v;
        double xMin = all.Min(p => fx(p.X)), xMax = all.Max(p => fx(p.X));
        if (xMax == xMin)
        {
            xMax = xMin + 1;
        }
        double leftMax = Nice(series.Where(s => !s.RightAxis).SelectMany(s => s.Points).Select(p => p.Y).DefaultIfEmpty(1).Max());
        double rightMax = Nice(series.Where(s => s.RightAxis).SelectMany(s => s.Points).Select(p => p.Y).DefaultIfEmpty(1).Max());
        // On a log axis, even steps would fall between the swept values (2.51, 6.31, …): tick the values themselves.
        var xTicks = logX ? all.Select(p => p.X).Distinct().Order().Select(v => (At: fx(v), Label: v)).ToList() : null;
        Axes(b, xMin, xMax, 0, leftMax, xLabel, leftLabel, rightLabel, rightMax, xTicks);
        int legend = 0;
        foreach (var s in series)
        {
            double yMax = s.RightAxis ? rightMax : leftMax;
            var pts = s.Points.Select(p => (X: X(fx(p.X), xMin, xMax), Y: Y(p.Y, 0, yMax), p)).ToList();
            b.Append(Inv, $"<polyline class=\"series\" fill=\"none\" stroke=\"{s.Color}\" stroke-width=\"2\" points=\"{string.Join(' ', pts.Select(p => string.Create(Inv, $"{p.X:0.#},{p.Y:0.#}")))}\"/>");
            foreach (var p in pts)
            {
                b.Append(Inv, $"<circle cx=\"{p.X:0.#}\" cy=\"{p.Y:0.#}\" r=\"3\" fill=\"{s.Color}\"><title>{Esc(s.Name)} at {p.p.X:0.###}: {p.p.Y:0.###}</title></circle>");
            }
            b.Append(Inv, $"<rect x=\"{Left + 10 + legend * 230}\" y=\"8\" width=\"12\" height=\"12\" fill=\"{s.Color}\"/><text x=\"{Left + 26 + legend * 230}\" y=\"18\" font-size=\"12\">{Esc(s.Name)}</text>");
            legend++;
        }
        return End(b);
    }

    private static (int W, int H) Plot => (Width - Left - Right, Height - Top - Bottom);

    private static StringBuilder Begin(string id, string title) => new StringBuilder()
        .Append(Inv, $"<figure><figcaption>{Esc(title)}</figcaption><svg class=\"chart\" id=\"{Esc(id)}\" role=\"img\" aria-label=\"{Esc(title)}\" viewBox=\"0 0 {Width} {Height}\" width=\"{Width}\" height=\"{Height}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\">");

    private static string End(StringBuilder b) => b.Append("</svg></figure>").ToString();

    private static string Empty() => string.Create(Inv, $"<text x=\"{Width / 2}\" y=\"{Height / 2}\" text-anchor=\"middle\">no data</text>");

    /// <param name="xTicks">Where to tick the x axis and what to write there; null: six even steps.</param>
    private static void Axes(StringBuilder b, double xMin, double xMax, double yMin, double yMax, string xLabel, string yLabel, string? rightLabel, double rightMax,
        IReadOnlyList<(double At, double Label)>? xTicks = null)
    {
        int x0 = Left, x1 = Left + Plot.W, y0 = Top + Plot.H, y1 = Top;
        b.Append(Inv, $"<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#333\"/><line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\" stroke=\"#333\"/>");
        for (int i = 0; i <= 5; i++)
        {
            double v = yMin + (yMax - yMin) * i / 5, y = Y(v, yMin, yMax);
            b.Append(Inv, $"<line x1=\"{x0}\" y1=\"{y:0.#}\" x2=\"{x1}\" y2=\"{y:0.#}\" stroke=\"#ddd\"/><text x=\"{x0 - 6}\" y=\"{y + 4:0.#}\" font-size=\"11\" text-anchor=\"end\">{Short(v)}</text>");
            if (rightLabel is not null)
            {
                b.Append(Inv, $"<text x=\"{x1 + 6}\" y=\"{y + 4:0.#}\" font-size=\"11\">{Short(rightMax * i / 5)}</text>");
            }
        }
        foreach (var (at, label) in xTicks ?? [.. Enumerable.Range(0, 6).Select(i => xMin + (xMax - xMin) * i / 5).Select(v => (v, v))])
        {
            b.Append(Inv, $"<text x=\"{X(at, xMin, xMax):0.#}\" y=\"{y0 + 16}\" font-size=\"11\" text-anchor=\"middle\">{Short(label)}</text>");
        }
        b.Append(Inv, $"<text x=\"{x0 + Plot.W / 2}\" y=\"{Height - 10}\" font-size=\"12\" text-anchor=\"middle\">{Esc(xLabel)}</text>");
        b.Append(Inv, $"<text transform=\"translate(16 {y1 + Plot.H / 2}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">{Esc(yLabel)}</text>");
        if (rightLabel is not null)
        {
            b.Append(Inv, $"<text transform=\"translate({Width - 12} {y1 + Plot.H / 2}) rotate(90)\" font-size=\"12\" text-anchor=\"middle\">{Esc(rightLabel)}</text>");
        }
    }

    private static double X(double v, double min, double max) => Left + (v - min) / (max - min) * Plot.W;

    private static double Y(double v, double min, double max) => Top + Plot.H - (v - min) / (max - min) * Plot.H;

    /// <summary>A round axis maximum at or above the data's: 1, 2 or 5 times a power of ten.</summary>
    private static double Nice(double max)
    {
        if (max <= 0 || double.IsNaN(max))
        {
            return 1;
        }
        double p = Math.Pow(10, Math.Floor(Math.Log10(max)));
        return new[] { 1, 2, 5, 10 }.Select(m => m * p).First(v => v >= max);
    }

    private static string Short(double v) => Math.Abs(v) >= 1e6 ? (v / 1e6).ToString("0.##", Inv) + "M"
        : Math.Abs(v) >= 1e4 ? (v / 1e3).ToString("0.#", Inv) + "k"
        : v.ToString(Math.Abs(v) >= 100 ? "0" : "0.##", Inv);

    public static string Esc(string s) => WebUtility.HtmlEncode(s);
}

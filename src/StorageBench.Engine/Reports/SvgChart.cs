using System.Globalization;
using System.Net;
using System.Text;

namespace StorageBench.Engine.Reports;

/// <summary>A series for a line chart: its name, colour, points, and which y axis it uses.</summary>
public sealed record ChartSeries(string Name, string Color, IReadOnlyList<(double X, double Y)> Points, bool RightAxis = false);

/// <summary>A vertical line across the plot at <paramref name="X"/> with a label at its top (the knee of a saturation search).</summary>
public sealed record ChartMarker(double X, string Label, string Color);

/// <summary>
/// Inline SVG charts for the HTML report: drawn here, so the page needs no script, no library and no
/// network to show them. Axes are chosen so the picture cannot mislead: ticks at round values (1, 2 or 5
/// times a power of ten), a latency axis on a log scale where its values span a decade or more, and a
/// histogram's tail in a labelled overflow bin instead of stretching the axis.
/// </summary>
public static class SvgChart
{
    private const int Width = 760, Height = 320, Left = 70, Right = 70, Top = 46, Bottom = 62;

    /// <summary>Room right of a histogram's axis for its overflow bin.</summary>
    private const int OverflowRoom = 80;

    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>
    /// A histogram: one bar per bin between its edges, on an axis that ends with the last bin. The
    /// <paramref name="overflow"/> bin (the tail beyond it) is drawn apart, right of the axis, labelled with its range.
    /// </summary>
    public static string Bars(string id, string title, string xLabel, string yLabel, IReadOnlyList<(double From, double To, double Value)> bins,
        (double From, double To, double Value)? overflow = null)
    {
        var b = Begin(id, title);
        if (bins.Count == 0)
        {
            return End(b.Append(Empty()));
        }
        int plotWidth = Plot.W - (overflow is null ? 0 : OverflowRoom);
        var x = Axis.Linear(bins[0].From, bins[^1].To, Left, Left + plotWidth);
        // Whole requests: no tick between two counts.
        var y = Axis.Linear(0, Math.Max(bins.Max(v => v.Value), overflow?.Value ?? 0), Top + Plot.H, Top, minStep: 1);
        Grid(b, y, Left, Left + plotWidth, yLabel, right: false);
        XAxis(b, x, xLabel, Left + plotWidth);
        foreach (var (from, to, value) in bins)
        {
            double x0 = x.At(from), x1 = x.At(to), top = y.At(value);
            b.Append(Inv, $"<rect class=\"bar\" x=\"{x0:0.#}\" y=\"{top:0.#}\" width=\"{Math.Max(1, x1 - x0 - 1):0.#}\" height=\"{Top + Plot.H - top:0.#}\" fill=\"#4e79a7\"><title>{from:0.###}–{to:0.###}: {value:0}</title></rect>");
        }
        if (overflow is { } o)
        {
            double x0 = Left + plotWidth + 20, top = y.At(o.Value);
            string label = $"≥ {Short(o.From)} (to {Short(o.To)})";
            b.Append(Inv, $"<rect class=\"overflow\" x=\"{x0:0.#}\" y=\"{top:0.#}\" width=\"40\" height=\"{Top + Plot.H - top:0.#}\" fill=\"#9c755f\"><title>{Esc(label)}: {o.Value:0}</title></rect>")
                .Append(Inv, $"<text x=\"{x0 + 20:0.#}\" y=\"{top - 4:0.#}\" font-size=\"11\" text-anchor=\"middle\">{o.Value:#,0}</text>")
                .Append(Inv, $"<text class=\"overflow-label\" x=\"{x0 + 20:0.#}\" y=\"{Top + Plot.H + 16}\" font-size=\"10\" text-anchor=\"middle\">≥ {Short(o.From)}</text>")
                .Append(Inv, $"<text x=\"{x0 + 20:0.#}\" y=\"{Top + Plot.H + 28}\" font-size=\"10\" text-anchor=\"middle\">(to {Short(o.To)})</text>");
        }
        return End(b);
    }

    /// <summary>
    /// Line chart with up to two y axes (left from zero; right — latency — on a log scale when its values span a
    /// decade or more), each series with markers.
    /// </summary>
    /// <param name="logX">A log x axis ticked at the points' own x values (a sweep's values).</param>
    /// <param name="markers">Vertical lines with labels (the knee and the highest useful value of a saturation search).</param>
    /// <param name="xNotes">A second line of text under the x axis at these x values (the sample count behind each step's percentiles).</param>
    /// <param name="minXStep">The smallest x tick step (a timeline's bucket width: no tick between two seconds).</param>
    public static string Lines(string id, string title, string xLabel, string leftLabel, string? rightLabel, IReadOnlyList<ChartSeries> series, bool logX = false,
        IReadOnlyList<ChartMarker>? markers = null, IReadOnlyList<(double X, string Text)>? xNotes = null, double minXStep = 0)
    {
        var b = Begin(id, title);
        var all = series.SelectMany(s => s.Points).ToList();
        if (all.Count == 0)
        {
            return End(b.Append(Empty()));
        }
        var xs = all.Select(p => p.X).Concat(markers?.Select(m => m.X) ?? []).ToList();
        var x = logX && xs.All(v => v > 0)
            ? Axis.LogAt([.. xs.Distinct().Order()], Left, Left + Plot.W)
            : Axis.Linear(xs.Min(), xs.Max(), Left, Left + Plot.W, minXStep);
        var leftValues = series.Where(s => !s.RightAxis).SelectMany(s => s.Points).Select(p => p.Y).ToList();
        var rightValues = series.Where(s => s.RightAxis).SelectMany(s => s.Points).Select(p => p.Y).ToList();
        var left = Axis.Linear(0, leftValues.DefaultIfEmpty(1).Max(), Top + Plot.H, Top);
        var right = Axis.ForValues(rightValues, Top + Plot.H, Top);
        Grid(b, left, Left, Left + Plot.W, leftLabel + (left.Log ? " (log scale)" : ""), right: false);
        if (rightLabel is not null)
        {
            Grid(b, right, Left, Left + Plot.W, rightLabel + (right.Log ? " (log scale)" : ""), right: true);
        }
        XAxis(b, x, xLabel + (x.Log ? " (log scale)" : ""), Left + Plot.W);
        foreach (var note in xNotes ?? [])
        {
            b.Append(Inv, $"<text class=\"x-note\" x=\"{x.At(note.X):0.#}\" y=\"{Top + Plot.H + 30}\" font-size=\"10\" fill=\"#555\" text-anchor=\"middle\">{Esc(note.Text)}</text>");
        }
        foreach (var m in markers ?? [])
        {
            double at = x.At(m.X);
            b.Append(Inv, $"<line class=\"marker\" x1=\"{at:0.#}\" y1=\"{Top}\" x2=\"{at:0.#}\" y2=\"{Top + Plot.H}\" stroke=\"{m.Color}\" stroke-dasharray=\"5 4\" stroke-width=\"1.5\"/>")
                .Append(Inv, $"<text class=\"marker-label\" x=\"{at + 4:0.#}\" y=\"{Top + 12}\" font-size=\"11\" fill=\"{m.Color}\">{Esc(m.Label)}</text>");
        }
        double legendX = Left, legendY = 14;
        foreach (var s in series)
        {
            var axis = s.RightAxis ? right : left;
            var pts = s.Points.Select(p => (X: x.At(p.X), Y: axis.At(p.Y), p)).ToList();
            b.Append(Inv, $"<polyline class=\"series\" fill=\"none\" stroke=\"{s.Color}\" stroke-width=\"2\" points=\"{string.Join(' ', pts.Select(p => string.Create(Inv, $"{p.X:0.#},{p.Y:0.#}")))}\"/>");
            foreach (var p in pts)
            {
                b.Append(Inv, $"<circle cx=\"{p.X:0.#}\" cy=\"{p.Y:0.#}\" r=\"3\" fill=\"{s.Color}\"><title>{Esc(s.Name)} at {p.p.X:0.###}: {p.p.Y:0.###}</title></circle>");
            }
            double width = 26 + s.Name.Length * 6.4;
            if (legendX + width > Width - 10)
            {
                legendX = Left;
                legendY += 16;
            }
            b.Append(Inv, $"<rect x=\"{legendX:0.#}\" y=\"{legendY - 10:0.#}\" width=\"12\" height=\"12\" fill=\"{s.Color}\"/><text x=\"{legendX + 16:0.#}\" y=\"{legendY:0.#}\" font-size=\"12\">{Esc(s.Name)}</text>");
            legendX += width;
        }
        return End(b);
    }

    private static (int W, int H) Plot => (Width - Left - Right, Height - Top - Bottom);

    private static StringBuilder Begin(string id, string title) => new StringBuilder()
        .Append(Inv, $"<figure><figcaption>{Esc(title)}</figcaption><svg class=\"chart\" id=\"{Esc(id)}\" role=\"img\" aria-label=\"{Esc(title)}\" viewBox=\"0 0 {Width} {Height}\" width=\"{Width}\" height=\"{Height}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\">");

    private static string End(StringBuilder b) => b.Append("</svg></figure>").ToString();

    private static string Empty() => string.Create(Inv, $"<text x=\"{Width / 2}\" y=\"{Height / 2}\" text-anchor=\"middle\">no data</text>");

    /// <summary>A y axis's tick labels (left or right of the plot) and, for the left one, the grid lines and the axis line.</summary>
    private static void Grid(StringBuilder b, Axis y, int x0, int x1, string label, bool right)
    {
        foreach (var (value, text) in y.Ticks)
        {
            double at = y.At(value);
            if (!right)
            {
                b.Append(Inv, $"<line x1=\"{x0}\" y1=\"{at:0.#}\" x2=\"{x1}\" y2=\"{at:0.#}\" stroke=\"#ddd\"/>");
            }
            b.Append(right
                ? string.Create(Inv, $"<text class=\"y-tick-right\" x=\"{x1 + 6}\" y=\"{at + 4:0.#}\" font-size=\"11\">{text}</text>")
                : string.Create(Inv, $"<text class=\"y-tick\" x=\"{x0 - 6}\" y=\"{at + 4:0.#}\" font-size=\"11\" text-anchor=\"end\">{text}</text>"));
        }
        b.Append(right
            ? string.Create(Inv, $"<text transform=\"translate({Width - 12} {Top + Plot.H / 2}) rotate(90)\" font-size=\"12\" text-anchor=\"middle\">{Esc(label)}</text>")
            : string.Create(Inv, $"<line x1=\"{x0}\" y1=\"{Top + Plot.H}\" x2=\"{x0}\" y2=\"{Top}\" stroke=\"#333\"/><text transform=\"translate(16 {Top + Plot.H / 2}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">{Esc(label)}</text>"));
    }

    private static void XAxis(StringBuilder b, Axis x, string label, int x1)
    {
        int y0 = Top + Plot.H;
        b.Append(Inv, $"<line x1=\"{Left}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#333\"/>");
        foreach (var (value, text) in x.Ticks)
        {
            b.Append(Inv, $"<text class=\"x-tick\" x=\"{x.At(value):0.#}\" y=\"{y0 + 16}\" font-size=\"11\" text-anchor=\"middle\">{text}</text>");
        }
        b.Append(Inv, $"<text x=\"{Left + (x1 - Left) / 2}\" y=\"{Height - 8}\" font-size=\"12\" text-anchor=\"middle\">{Esc(label)}</text>");
    }

    /// <summary>
    /// One axis: the value range it shows, where that lands in pixels, and its ticks. Linear axes are widened to
    /// round values and ticked every 1, 2 or 5 × 10ⁿ; log axes run between powers of ten, ticked at 1, 2, 5 × 10ⁿ.
    /// </summary>
    internal sealed record Axis(double Min, double Max, bool Log, double From, double To, IReadOnlyList<(double Value, string Text)> Ticks)
    {
        public double At(double v)
        {
            double share = Log ? (Math.Log10(Math.Max(v, Min)) - Math.Log10(Min)) / (Math.Log10(Max) - Math.Log10(Min)) : (v - Min) / (Max - Min);
            return From + share * (To - From);
        }

        /// <param name="minStep">No tick step below this (0: any).</param>
        public static Axis Linear(double min, double max, double from, double to, double minStep = 0)
        {
            if (!(max > min))
            {
                max = min + Math.Max(1, minStep);
            }
            double step = Math.Max(NiceStep((max - min) / 5), minStep);
            double lo = Math.Floor(min / step + 1e-9) * step, hi = Math.Ceiling(max / step - 1e-9) * step;
            int count = (int)Math.Round((hi - lo) / step);
            return new Axis(lo, hi, false, from, to, [.. Enumerable.Range(0, count + 1).Select(i => lo + i * step).Select(v => (v, Short(v)))]);
        }

        /// <summary>Log scale from the power of ten at or below the smallest value to the one at or above the largest.</summary>
        public static Axis Logarithmic(double min, double max, double from, double to)
        {
            double lo = Math.Pow(10, Math.Floor(Math.Log10(min) + 1e-9)), hi = Math.Pow(10, Math.Ceiling(Math.Log10(max) - 1e-9));
            var ticks = new List<(double, string)>();
            for (double decade = lo; decade < hi * 1.0001; decade *= 10)
            {
                ticks.AddRange(new[] { 1, 2, 5 }.Select(m => m * decade).Where(v => v <= hi * 1.0001).Select(v => (v, Short(v))));
            }
            return new Axis(lo, hi, true, from, to, ticks);
        }

        /// <summary>A log axis ticked at exactly these values (a sweep's steps): even steps would fall between them.</summary>
        public static Axis LogAt(IReadOnlyList<double> values, double from, double to) =>
            new(values[0], values[^1] > values[0] ? values[^1] : values[0] * 10, true, from, to, [.. values.Select(v => (v, Short(v)))]);

        /// <summary>Log when every value is positive and the largest is at least ten times the smallest; else linear from zero.</summary>
        public static Axis ForValues(IReadOnlyList<double> values, double from, double to) =>
            values.Count > 0 && values.Min() > 0 && values.Max() >= SpansDecades * values.Min()
                ? Logarithmic(values.Min(), values.Max(), from, to)
                : Linear(0, values.DefaultIfEmpty(1).Max(), from, to);
    }

    /// <summary>Values whose largest is this many times their smallest go on a log axis: on a linear one the small ones would be a flat line at zero.</summary>
    public const double SpansDecades = 10;

    /// <summary>1, 2 or 5 times a power of ten, the smallest at or above <paramref name="raw"/>.</summary>
    public static double NiceStep(double raw)
    {
        if (raw <= 0 || double.IsNaN(raw) || double.IsInfinity(raw))
        {
            return 1;
        }
        double p = Math.Pow(10, Math.Floor(Math.Log10(raw)));
        return new[] { 1, 2, 5, 10 }.Select(m => m * p).First(v => v >= raw * (1 - 1e-9));
    }

    private static string Short(double v) => Math.Abs(v) >= 1e6 ? (v / 1e6).ToString("0.##", Inv) + "M"
        : Math.Abs(v) >= 1e4 ? (v / 1e3).ToString("0.#", Inv) + "k"
        : v.ToString(Math.Abs(v) >= 100 ? "0" : "0.###", Inv);

    public static string Esc(string s) => WebUtility.HtmlEncode(s);
}

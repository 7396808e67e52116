package dev.servletqos.sample.demo;

import static dev.servletqos.sample.demo.Html.esc;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The report's charts: line charts over seconds as inline SVG, with the phases shaded, reference lines, a legend
 * and strips under the time axis.
 */
final class ReportCharts {

    private static final int BAND_HEIGHT = 18;

    private ReportCharts() {
    }

    /**
     * A line of a chart: values per second (NaN = no value), solid or with an SVG dash pattern, {@code width}
     * pixels wide (lines that may lie on top of each other, like budgets, get decreasing widths).
     */
    record Series(String name, String color, double[] values, String dash, double width) {

        Series(String name, String color, double[] values, String dash) {
            this(name, color, values, dash, 1.8);
        }

        /** Dashed (QoS off) or solid. */
        Series(String name, String color, double[] values, boolean dashed) {
            this(name, color, values, dashed ? "6 4" : null);
        }
    }

    /** A strip under a chart: one value per second (null = none), drawn as labelled segments. */
    record Band(String name, String[] values) {
    }

    /** A horizontal reference line (a target, the capacity). */
    record Guide(String name, String color, double value) {
    }

    static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile) {
        return chart(yLabel, n, series, guides, logY, profile, Double.NaN, List.of());
    }

    static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile, double fixedMax) {
        return chart(yLabel, n, series, guides, logY, profile, fixedMax, List.of());
    }

    /**
     * A line chart over seconds, as inline SVG; phases are shaded (an overload in red, a changed back end in
     * amber), with optional strips under the time axis.
     */
    static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile, double fixedMax, List<Band> bands) {
        int w = 960;
        int h = 300 + BAND_HEIGHT * bands.size() + (bands.isEmpty() ? 0 : 6);
        int left = 56;
        int right = 170;
        int top = 22;
        int bottom = 36;
        int pw = w - left - right;
        int ph = 300 - top - bottom;
        double max = 0;
        double min = Double.MAX_VALUE;
        for (Series s : series) {
            for (double v : s.values()) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                    if (v > 0) {
                        min = Math.min(min, v);
                    }
                }
            }
        }
        for (Guide g : guides) {
            max = Math.max(max, g.value());
            min = Math.min(min, g.value());
        }
        double lo;
        double hi;
        if (logY) {
            lo = Math.pow(10, Math.floor(Math.log10(Math.max(1, min == Double.MAX_VALUE ? 1 : min))));
            hi = Math.pow(10, Math.ceil(Math.log10(Math.max(lo * 10, max))));
        } else {
            lo = 0;
            hi = !Double.isNaN(fixedMax) ? fixedMax : nice(max <= 0 ? 1 : max * 1.08);
        }
        double xs = (double) pw / Math.max(1, n);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", w, h, w, h));
        double start = 0;
        for (Profile.Phase p : profile.phases()) {
            double x0 = left + start * xs;
            double x1 = left + Math.min(n, start + p.seconds()) * xs;
            String fill = p.backendChanged() ? "#fff1c9" : p.multiple() > 1 ? "#fde8e6" : "#f4f6f8";
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%s %s</text>%n", x0, top, Math.max(0, x1 - x0), ph,
                    fill, x0 + 4, top + 12, esc(p.name()), esc(p.describe())));
            start += p.seconds();
        }
        // y grid
        List<Double> ticks = new ArrayList<>();
        if (logY) {
            for (double v = lo; v <= hi * 1.0001; v *= 10) {
                ticks.add(v);
            }
        } else {
            double step = nice(hi / 5);
            for (double v = 0; v <= hi * 1.0001; v += step) {
                ticks.add(v);
            }
        }
        for (double v : ticks) {
            double y = y(v, lo, hi, logY, top, ph);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", left, left + pw, y, y, left - 4,
                    y + 4, label(v)));
        }
        for (int s = 0; s <= n; s += 10) {
            double x = left + s * xs;
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>%n", x,
                    top + ph + 14, s));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\""
                + " text-anchor=\"middle\">%s</text>%n", top + ph / 2, top + ph / 2, esc(yLabel)));
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
                + " stroke=\"#999\"/>%n", left, top, pw, ph));
        int legend = 0;
        for (Guide g : guides) {
            double y = y(g.value(), lo, hi, logY, top, ph);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
                    + " stroke-dasharray=\"2 3\" stroke-width=\"1.5\"/>%n", left, left + pw, y, y, g.color()));
            legend(b, w - right + 10, top + 8 + 16 * legend++, g.color(), "2 3", g.name());
        }
        for (Series s : series) {
            StringBuilder path = new StringBuilder();
            boolean pen = false;
            double[] v = s.values();
            for (int i = 0; i < v.length; i++) {
                if (Double.isNaN(v[i]) || (logY && v[i] <= 0)) {
                    pen = false;
                    continue;
                }
                double x = left + (i + 0.5) * xs;
                double y = y(logY ? Math.max(lo, v[i]) : v[i], lo, hi, logY, top, ph);
                path.append(pen ? " L" : " M").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                pen = true;
            }
            if (path.length() > 0) {
                b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\""
                        + " stroke-opacity=\"%s\"%s/>%n", path.toString().trim(), s.color(), s.width(),
                        s.width() > 2.5 ? "0.45" : "1",
                        s.dash() != null ? " stroke-dasharray=\"" + s.dash() + "\"" : ""));
            }
            legend(b, w - right + 10, top + 8 + 16 * legend++, s.color(), s.dash(), s.name());
        }
        for (int k = 0; k < bands.size(); k++) {
            band(b, bands.get(k), left, top + ph + 24 + k * BAND_HEIGHT, xs, w - right + 10);
        }
        b.append("</svg>\n");
        return b.toString();
    }

    /** One strip: a segment per run of equal values, coloured by value, labelled where it is wide enough. */
    private static void band(StringBuilder b, Band band, int left, int y, double xs, int labelX) {
        String[] v = band.values();
        int i = 0;
        while (i < v.length) {
            int j = i + 1;
            while (j < v.length && Objects.equals(v[j], v[i])) {
                j++;
            }
            if (v[i] != null) {
                double x0 = left + i * xs;
                double width = (j - i) * xs;
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                        + " fill=\"%s\" stroke=\"#fff\"/>%n", x0, y, width, BAND_HEIGHT - 4, bandColor(v[i])));
                if (width >= 7 * v[i].length() + 6) {
                    b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#222\">%s</text>%n", x0 + 4,
                            y + BAND_HEIGHT - 8, esc(v[i])));
                }
            }
            i = j;
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", labelX, y + BAND_HEIGHT - 8,
                esc(band.name())));
    }

    private static String bandColor(String value) {
        return switch (value) {
            case "policy" -> "#dfe3e8";
            case "operator" -> "#e4d2f4";
            case "controller" -> "#bfe5c6";
            case "off" -> "#eeeeee";
            case "absolute" -> "#c6dbef";
            case "relative" -> "#fdd9b5";
            default -> "#e8eef5";
        };
    }

    private static void legend(StringBuilder b, int x, int y, String color, String dash, String name) {
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\""
                + " stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>%n", x, x + 22, y, y, color,
                dash == null ? "" : " stroke-dasharray=\"" + dash + "\"", x + 28, y + 4, esc(name)));
    }

    private static double y(double v, double lo, double hi, boolean logY, int top, int ph) {
        double f = logY ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo);
        return top + ph - Math.max(0, Math.min(1, f)) * ph;
    }

    private static double nice(double x) {
        double e = Math.pow(10, Math.floor(Math.log10(x)));
        double f = x / e;
        double n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
        return n * e;
    }

    private static String label(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}

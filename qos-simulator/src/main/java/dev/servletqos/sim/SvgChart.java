package dev.servletqos.sim;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A small self-contained SVG line chart for the docs: several series over time, dashed horizontal reference
 * lines (a target, a capacity) and dashed vertical markers (when something changes), axes with round ticks, a
 * legend. No scripts, styles or fonts from outside, so the file renders anywhere, also inside Markdown.
 * Immutable; build with {@link #builder()}.
 */
public final class SvgChart {

    private static final String[] COLORS = {
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};

    private record Series(String name, double[] x, double[] y) {
    }

    private record Line(double value, String label) {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final int width;
    private final int height;
    private final List<Series> series;
    private final List<Line> references;
    private final List<Line> markers;
    private final double xMin;
    private final double xMax;
    private final double yMin;
    private final double yMax;

    private SvgChart(Builder b) {
        this.title = b.title;
        this.xLabel = b.xLabel;
        this.yLabel = b.yLabel;
        this.width = b.width;
        this.height = b.height;
        this.series = List.copyOf(b.series);
        this.references = List.copyOf(b.references);
        this.markers = List.copyOf(b.markers);
        this.xMin = b.xMin;
        this.xMax = b.xMax;
        this.yMin = b.yMin;
        this.yMax = b.yMax;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Writes {@link #toSvg()} to a file (its directory is created). */
    public void write(Path file) {
        SimResult.write(file, toSvg());
    }

    /** The chart as an SVG document. */
    public String toSvg() {
        double left = 64;
        double right = 24;
        double top = title.isEmpty() ? 36 : 56;
        double bottom = 48;
        double pw = width - left - right;
        double ph = height - top - bottom;

        double x0 = Double.POSITIVE_INFINITY;
        double x1 = Double.NEGATIVE_INFINITY;
        double y0 = Double.POSITIVE_INFINITY;
        double y1 = Double.NEGATIVE_INFINITY;
        for (Series s : series) {
            for (int i = 0; i < s.x.length; i++) {
                if (Double.isFinite(s.x[i]) && Double.isFinite(s.y[i])) {
                    x0 = Math.min(x0, s.x[i]);
                    x1 = Math.max(x1, s.x[i]);
                    y0 = Math.min(y0, s.y[i]);
                    y1 = Math.max(y1, s.y[i]);
                }
            }
        }
        for (Line r : references) {
            y0 = Math.min(y0, r.value);
            y1 = Math.max(y1, r.value);
        }
        for (Line m : markers) {
            x0 = Math.min(x0, m.value);
            x1 = Math.max(x1, m.value);
        }
        x0 = Double.isNaN(xMin) ? Math.min(0, Double.isFinite(x0) ? x0 : 0) : xMin;
        x1 = Double.isNaN(xMax) ? x1 : xMax;
        if (!(x0 < x1)) {
            x1 = x0 + 1;
        }
        y0 = Double.isNaN(yMin) ? Math.min(0, Double.isFinite(y0) ? y0 : 0) : yMin;
        y1 = Double.isNaN(yMax) ? (Double.isFinite(y1) ? y1 : 1) : yMax;
        if (!(y0 < y1)) {
            y1 = y0 + 1;
        }
        double yStep = niceStep((y1 - y0) / 5);
        if (Double.isNaN(yMax)) {
            y1 = Math.ceil(y1 / yStep - 1e-9) * yStep;
        }
        if (Double.isNaN(yMin)) {
            y0 = Math.floor(y0 / yStep + 1e-9) * yStep;
        }
        double xStep = niceStep((x1 - x0) / 8);
        final double fx0 = x0;
        final double fx1 = x1;
        final double fy0 = y0;
        final double fy1 = y1;
        java.util.function.DoubleUnaryOperator sx = x -> left + (x - fx0) / (fx1 - fx0) * pw;
        java.util.function.DoubleUnaryOperator sy = y -> top + ph - (Math.max(fy0, Math.min(fy1, y)) - fy0)
                / (fy1 - fy0) * ph;

        StringBuilder b = new StringBuilder(4096);
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"")
                .append(height).append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        b.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        if (!title.isEmpty()) {
            b.append("<text x=\"").append(n(width / 2.0)).append("\" y=\"20\" text-anchor=\"middle\" font-size=\"15\""
                    + " font-weight=\"bold\">").append(esc(title)).append("</text>\n");
        }
        // grid and ticks
        b.append("<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
        for (double y = y0; y <= y1 + yStep * 1e-6; y += yStep) {
            double py = sy.applyAsDouble(y);
            b.append("<line x1=\"").append(n(left)).append("\" y1=\"").append(n(py)).append("\" x2=\"")
                    .append(n(left + pw)).append("\" y2=\"").append(n(py)).append("\"/>\n");
        }
        b.append("</g>\n<g fill=\"#333333\">\n");
        for (double y = y0; y <= y1 + yStep * 1e-6; y += yStep) {
            b.append("<text x=\"").append(n(left - 6)).append("\" y=\"").append(n(sy.applyAsDouble(y) + 4))
                    .append("\" text-anchor=\"end\">").append(tick(y, yStep)).append("</text>\n");
        }
        for (double x = Math.ceil(x0 / xStep - 1e-9) * xStep; x <= x1 + xStep * 1e-6; x += xStep) {
            double px = sx.applyAsDouble(x);
            b.append("<line x1=\"").append(n(px)).append("\" y1=\"").append(n(top + ph)).append("\" x2=\"")
                    .append(n(px)).append("\" y2=\"").append(n(top + ph + 4)).append("\" stroke=\"#333333\"/>\n");
            b.append("<text x=\"").append(n(px)).append("\" y=\"").append(n(top + ph + 18))
                    .append("\" text-anchor=\"middle\">").append(tick(x, xStep)).append("</text>\n");
        }
        b.append("</g>\n");
        // axes
        b.append("<path d=\"M").append(n(left)).append(' ').append(n(top)).append("V").append(n(top + ph))
                .append("H").append(n(left + pw)).append("\" fill=\"none\" stroke=\"#333333\"/>\n");
        b.append("<text x=\"").append(n(left + pw / 2)).append("\" y=\"").append(n(height - 10))
                .append("\" text-anchor=\"middle\">").append(esc(xLabel)).append("</text>\n");
        b.append("<text transform=\"translate(16 ").append(n(top + ph / 2)).append(") rotate(-90)\""
                + " text-anchor=\"middle\">").append(esc(yLabel)).append("</text>\n");
        // markers and references
        for (Line m : markers) {
            double px = sx.applyAsDouble(m.value);
            b.append("<line x1=\"").append(n(px)).append("\" y1=\"").append(n(top)).append("\" x2=\"").append(n(px))
                    .append("\" y2=\"").append(n(top + ph)).append("\" stroke=\"#888888\" stroke-dasharray=\"2 3\"/>\n");
            b.append("<text x=\"").append(n(px + 4)).append("\" y=\"").append(n(top + 12))
                    .append("\" fill=\"#555555\">").append(esc(m.label)).append("</text>\n");
        }
        for (Line r : references) {
            double py = sy.applyAsDouble(r.value);
            b.append("<line x1=\"").append(n(left)).append("\" y1=\"").append(n(py)).append("\" x2=\"")
                    .append(n(left + pw)).append("\" y2=\"").append(n(py))
                    .append("\" stroke=\"#444444\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n");
            b.append("<text x=\"").append(n(left + pw - 4)).append("\" y=\"").append(n(py - 4))
                    .append("\" text-anchor=\"end\" fill=\"#444444\">").append(esc(r.label)).append("</text>\n");
        }
        // series, clipped to the plot area
        b.append("<clipPath id=\"plot\"><rect x=\"").append(n(left)).append("\" y=\"").append(n(top))
                .append("\" width=\"").append(n(pw)).append("\" height=\"").append(n(ph)).append("\"/></clipPath>\n");
        b.append("<g clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"1.8\" stroke-linejoin=\"round\">\n");
        for (int k = 0; k < series.size(); k++) {
            Series s = series.get(k);
            StringBuilder d = new StringBuilder();
            boolean pen = false;
            for (int i = 0; i < s.x.length; i++) {
                if (!Double.isFinite(s.x[i]) || !Double.isFinite(s.y[i])) {
                    pen = false;
                    continue;
                }
                d.append(pen ? 'L' : 'M').append(n(sx.applyAsDouble(s.x[i]))).append(' ')
                        .append(n(sy.applyAsDouble(s.y[i])));
                pen = true;
            }
            b.append("<path stroke=\"").append(color(k)).append("\" d=\"").append(d).append("\"/>\n");
        }
        b.append("</g>\n");
        // legend, one row above the plot
        double lx = left;
        double ly = top - 12;
        for (int k = 0; k < series.size(); k++) {
            String name = series.get(k).name;
            b.append("<line x1=\"").append(n(lx)).append("\" y1=\"").append(n(ly - 4)).append("\" x2=\"")
                    .append(n(lx + 18)).append("\" y2=\"").append(n(ly - 4)).append("\" stroke=\"").append(color(k))
                    .append("\" stroke-width=\"2.5\"/>\n");
            b.append("<text x=\"").append(n(lx + 22)).append("\" y=\"").append(n(ly)).append("\">")
                    .append(esc(name)).append("</text>\n");
            lx += 34 + 7 * name.length();
        }
        b.append("</svg>\n");
        return b.toString();
    }

    private static String color(int k) {
        return COLORS[k % COLORS.length];
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
    static double niceStep(double raw) {
        if (!(raw > 0) || !Double.isFinite(raw)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / p;
        double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
        return m * p;
    }

    private static String tick(double v, double step) {
        int decimals = Math.max(0, (int) Math.ceil(-Math.log10(step) - 1e-9));
        if (Math.abs(v) < step * 1e-6) {
            v = 0;
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String n(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Builds an {@link SvgChart}. Not thread-safe. */
    public static final class Builder {
        private String title = "";
        private String xLabel = "";
        private String yLabel = "";
        private int width = 720;
        private int height = 360;
        private final List<Series> series = new ArrayList<>();
        private final List<Line> references = new ArrayList<>();
        private final List<Line> markers = new ArrayList<>();
        private double xMin = Double.NaN;
        private double xMax = Double.NaN;
        private double yMin = Double.NaN;
        private double yMax = Double.NaN;

        private Builder() {
        }

        public Builder title(String t) {
            this.title = Objects.requireNonNull(t);
            return this;
        }

        public Builder xLabel(String l) {
            this.xLabel = Objects.requireNonNull(l);
            return this;
        }

        public Builder yLabel(String l) {
            this.yLabel = Objects.requireNonNull(l);
            return this;
        }

        /** Size in pixels; default 720 x 360. */
        public Builder size(int width, int height) {
            if (width < 200 || height < 120) {
                throw new IllegalArgumentException("chart too small: " + width + "x" + height);
            }
            this.width = width;
            this.height = height;
            return this;
        }

        /** A line; NaN values leave a gap. */
        public Builder series(String name, double[] x, double[] y) {
            if (x.length != y.length) {
                throw new IllegalArgumentException(name + ": " + x.length + " x values and " + y.length + " y values");
            }
            series.add(new Series(Objects.requireNonNull(name), x.clone(), y.clone()));
            return this;
        }

        /** A dashed horizontal line at {@code y} (a target, a capacity), labelled at its right end. */
        public Builder reference(double y, String label) {
            references.add(new Line(y, Objects.requireNonNull(label)));
            return this;
        }

        /** A dotted vertical line at {@code x} (a change of load), labelled at its top. */
        public Builder marker(double x, String label) {
            markers.add(new Line(x, Objects.requireNonNull(label)));
            return this;
        }

        /** The x axis range; default from 0 (or the lowest value) to the highest value. */
        public Builder xRange(double min, double max) {
            if (!(min < max)) {
                throw new IllegalArgumentException("x range " + min + ".." + max);
            }
            this.xMin = min;
            this.xMax = max;
            return this;
        }

        /** The y axis range; default from 0 (or the lowest value) to a round number above the highest. */
        public Builder yRange(double min, double max) {
            if (!(min < max)) {
                throw new IllegalArgumentException("y range " + min + ".." + max);
            }
            this.yMin = min;
            this.yMax = max;
            return this;
        }

        public SvgChart build() {
            return new SvgChart(this);
        }
    }
}

package dev.servletqos.control;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Roots of small real polynomials (the closed-loop characteristic polynomials of the gain designer, degree 3,
 * at most 4 in practice), by the Aberth-Ehrlich simultaneous iteration: every estimate {@code z_k} moves by
 * {@code w / (1 - w S)} with {@code w = p(z_k)/p'(z_k)} and {@code S = sum over j != k of 1/(z_k - z_j)}, which
 * converges cubically to simple roots and keeps the estimates apart, so no deflation is needed. Multiple roots
 * converge more slowly and to about the square root of the machine precision (1e-8), which is ample for
 * deciding where a pole lies. Stateless.
 */
final class Polynomials {

    private static final int MAX_ITERATIONS = 500;
    private static final double TOLERANCE = 1e-15;

    private Polynomials() {
    }

    /**
     * The roots of {@code c[0] z^n + c[1] z^(n-1) + ... + c[n]}, with multiplicity, ordered by decreasing
     * modulus (then real part, then imaginary part). Leading zero coefficients lower the degree; a constant
     * has no roots.
     *
     * @throws IllegalArgumentException if a coefficient is not finite, or all are zero
     */
    static List<Complex> roots(double... c) {
        for (double x : c) {
            if (!Double.isFinite(x)) {
                throw new IllegalArgumentException("coefficient not finite: " + Arrays.toString(c));
            }
        }
        int lead = 0;
        while (lead < c.length && c[lead] == 0) {
            lead++;
        }
        if (lead == c.length) {
            throw new IllegalArgumentException("the zero polynomial has no roots");
        }
        int end = c.length;
        List<Complex> roots = new ArrayList<>();
        while (end - 1 > lead && c[end - 1] == 0) {
            roots.add(new Complex(0, 0));
            end--;
        }
        int n = end - lead - 1;
        double[] a = new double[n + 1];
        for (int i = 0; i <= n; i++) {
            a[i] = c[lead + i] / c[lead];
        }
        if (n == 1) {
            roots.add(new Complex(-a[1], 0));
        } else if (n > 1) {
            aberth(a, roots);
        }
        roots.sort(Comparator.comparingDouble(Complex::abs).reversed()
                .thenComparing(Comparator.comparingDouble(Complex::re).reversed())
                .thenComparing(Comparator.comparingDouble(Complex::im).reversed()));
        return List.copyOf(roots);
    }

    /** The value of the polynomial {@code c} (highest power first) at {@code z}. */
    static Complex evaluate(double[] c, Complex z) {
        double re = 0;
        double im = 0;
        for (double x : c) {
            double r = re * z.re() - im * z.im() + x;
            im = re * z.im() + im * z.re();
            re = r;
        }
        return new Complex(re, im);
    }

    /** Aberth-Ehrlich on the monic {@code a} (a[0] = 1) of degree at least 2, no root at zero. */
    private static void aberth(double[] a, List<Complex> out) {
        int n = a.length - 1;
        // Start on a circle that holds every root (Cauchy's bound), rotated off the real axis so that
        // conjugate pairs are not approached from symmetric, stalling positions.
        double bound = 0;
        for (int i = 1; i <= n; i++) {
            bound = Math.max(bound, Math.abs(a[i]));
        }
        double radius = Math.max(1e-3, Math.min(1 + bound, 2 * Math.pow(Math.abs(a[n]), 1.0 / n) + 1));
        double[] re = new double[n];
        double[] im = new double[n];
        for (int k = 0; k < n; k++) {
            double angle = 2 * Math.PI * k / n + 0.4;
            re[k] = radius * Math.cos(angle);
            im[k] = radius * Math.sin(angle);
        }
        for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
            double largestStep = 0;
            for (int k = 0; k < n; k++) {
                // p(z) and p'(z) by Horner
                double pr = 1;
                double pi = 0;
                double dr = 0;
                double di = 0;
                for (int i = 1; i <= n; i++) {
                    double ndr = dr * re[k] - di * im[k] + pr;
                    di = dr * im[k] + di * re[k] + pi;
                    dr = ndr;
                    double npr = pr * re[k] - pi * im[k] + a[i];
                    pi = pr * im[k] + pi * re[k];
                    pr = npr;
                }
                if (pr == 0 && pi == 0) {
                    continue;
                }
                double dd = dr * dr + di * di;
                if (dd == 0) {
                    // a stationary point: nudge the estimate rather than divide by zero
                    re[k] += 1e-8 * (1 + Math.abs(re[k]));
                    im[k] += 1e-8 * (1 + Math.abs(im[k]));
                    largestStep = Double.POSITIVE_INFINITY;
                    continue;
                }
                double wr = (pr * dr + pi * di) / dd;
                double wi = (pi * dr - pr * di) / dd;
                double sr = 0;
                double si = 0;
                for (int j = 0; j < n; j++) {
                    if (j != k) {
                        double xr = re[k] - re[j];
                        double xi = im[k] - im[j];
                        double xx = xr * xr + xi * xi;
                        if (xx > 0) {
                            sr += xr / xx;
                            si -= xi / xx;
                        }
                    }
                }
                // step = w / (1 - w S)
                double qr = 1 - (wr * sr - wi * si);
                double qi = -(wr * si + wi * sr);
                double qq = qr * qr + qi * qi;
                double stepR;
                double stepI;
                if (qq == 0 || !Double.isFinite(qq)) {
                    stepR = wr;
                    stepI = wi;
                } else {
                    stepR = (wr * qr + wi * qi) / qq;
                    stepI = (wi * qr - wr * qi) / qq;
                }
                re[k] -= stepR;
                im[k] -= stepI;
                largestStep = Math.max(largestStep, Math.hypot(stepR, stepI) / (1 + Math.hypot(re[k], im[k])));
            }
            if (largestStep < TOLERANCE) {
                break;
            }
        }
        pairConjugates(re, im);
        for (int k = 0; k < n; k++) {
            out.add(new Complex(re[k], im[k]));
        }
    }

    /**
     * A real polynomial's roots are real or come in conjugate pairs; rounding leaves a real root with a tiny
     * imaginary part and a pair slightly unequal. Make them exact: a root whose imaginary part is negligible
     * and that has no near-conjugate partner becomes real; a pair becomes an exact conjugate pair.
     */
    private static void pairConjugates(double[] re, double[] im) {
        int n = re.length;
        boolean[] done = new boolean[n];
        for (int k = 0; k < n; k++) {
            if (done[k]) {
                continue;
            }
            double scale = 1 + Math.hypot(re[k], im[k]);
            if (Math.abs(im[k]) <= 1e-7 * scale) {
                im[k] = 0;
                done[k] = true;
                continue;
            }
            int partner = -1;
            double best = Double.POSITIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                if (j != k && !done[j]) {
                    double d = Math.hypot(re[j] - re[k], im[j] + im[k]);
                    if (d < best) {
                        best = d;
                        partner = j;
                    }
                }
            }
            done[k] = true;
            if (partner >= 0 && best <= 1e-6 * scale) {
                double r = (re[k] + re[partner]) / 2;
                double i = (Math.abs(im[k]) + Math.abs(im[partner])) / 2;
                re[k] = r;
                re[partner] = r;
                im[k] = Math.copySign(i, im[k]);
                im[partner] = -im[k];
                done[partner] = true;
            }
        }
    }
}

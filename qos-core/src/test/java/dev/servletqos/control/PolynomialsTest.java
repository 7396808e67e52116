package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The root finder on polynomials whose roots are known. */
class PolynomialsTest {

    /** Asserts that {@code actual} holds {@code expected} (re, im pairs) as a multiset, within {@code tolerance}. */
    private static void assertRoots(List<Complex> actual, double tolerance, double... expected) {
        assertEquals(expected.length / 2, actual.size(), actual.toString());
        List<Complex> left = new ArrayList<>(actual);
        for (int i = 0; i < expected.length; i += 2) {
            Complex want = new Complex(expected[i], expected[i + 1]);
            Complex nearest = null;
            for (Complex c : left) {
                if (nearest == null || distance(c, want) < distance(nearest, want)) {
                    nearest = c;
                }
            }
            assertTrue(distance(nearest, want) <= tolerance, "no root near " + want + " in " + actual);
            left.remove(nearest);
        }
    }

    private static double distance(Complex a, Complex b) {
        return Math.hypot(a.re() - b.re(), a.im() - b.im());
    }

    /** The coefficients of {@code prod (z - root)}, highest power first, roots as (re, im) with conjugates. */
    private static double[] fromRoots(double... roots) {
        double[] re = {1};
        double[] im = {0};
        for (int i = 0; i < roots.length; i += 2) {
            double[] nr = new double[re.length + 1];
            double[] ni = new double[re.length + 1];
            for (int k = 0; k < re.length; k++) {
                nr[k] += re[k];
                ni[k] += im[k];
                nr[k + 1] -= re[k] * roots[i] - im[k] * roots[i + 1];
                ni[k + 1] -= re[k] * roots[i + 1] + im[k] * roots[i];
            }
            re = nr;
            im = ni;
        }
        return re;
    }

    @Test
    void distinctRealRoots() {
        assertRoots(Polynomials.roots(1, -6, 11, -6), 1e-12, 1, 0, 2, 0, 3, 0);
        assertRoots(Polynomials.roots(2, -3), 1e-15, 1.5, 0);
        assertRoots(Polynomials.roots(1, 0, -5, 0, 4), 1e-12, 1, 0, -1, 0, 2, 0, -2, 0);
    }

    @Test
    void complexPairsAreExactConjugates() {
        List<Complex> r = Polynomials.roots(1, 0, 1);
        assertRoots(r, 1e-12, 0, 1, 0, -1);
        assertEquals(r.get(0).re(), r.get(1).re(), 0);
        assertEquals(r.get(0).im(), -r.get(1).im(), 0);
        assertRoots(Polynomials.roots(1, 0, 0, 0, -1), 1e-12, 1, 0, -1, 0, 0, 1, 0, -1);
        // paper 001's relative-delay closed loop: poles about 0.69 and 0.38 +- 0.62i
        assertRoots(Polynomials.roots(fromRoots(0.7, 0, 0.38, 0.62, 0.38, -0.62)), 1e-12,
                0.7, 0, 0.38, 0.62, 0.38, -0.62);
    }

    @Test
    void repeatedRootsAreFoundToAboutTheSquareRootOfThePrecision() {
        assertRoots(Polynomials.roots(fromRoots(0.5, 0, 0.5, 0, -0.25, 0)), 1e-7, 0.5, 0, 0.5, 0, -0.25, 0);
        assertRoots(Polynomials.roots(fromRoots(1, 0, 1, 0, 1, 0)), 1e-4, 1, 0, 1, 0, 1, 0);
        assertRoots(Polynomials.roots(fromRoots(0.3, 0.4, 0.3, -0.4, 0.3, 0.4, 0.3, -0.4)), 1e-6,
                0.3, 0.4, 0.3, -0.4, 0.3, 0.4, 0.3, -0.4);
    }

    @Test
    void zeroRootsAndLeadingZerosLowerTheDegree() {
        assertRoots(Polynomials.roots(1, 0, -1, 0), 1e-12, 0, 0, 1, 0, -1, 0);
        assertRoots(Polynomials.roots(0, 0, 1, -2), 1e-15, 2, 0);
        assertRoots(Polynomials.roots(1, 0, 0), 0, 0, 0, 0, 0);
        assertEquals(List.of(), Polynomials.roots(3));
        assertThrows(IllegalArgumentException.class, () -> Polynomials.roots(0, 0));
        assertThrows(IllegalArgumentException.class, () -> Polynomials.roots(1, Double.NaN));
    }

    @Test
    void randomPolynomialsUpToDegreeFourAreSolved() {
        Random random = new Random(1);
        for (int trial = 0; trial < 2000; trial++) {
            int degree = 1 + random.nextInt(4);
            double[] roots = new double[2 * degree];
            for (int i = 0; i < degree; i++) {
                if (i + 1 < degree && random.nextBoolean()) {
                    roots[2 * i] = random.nextGaussian() * 2;
                    roots[2 * i + 1] = random.nextGaussian() * 2;
                    roots[2 * i + 2] = roots[2 * i];
                    roots[2 * i + 3] = -roots[2 * i + 1];
                    i++;
                } else {
                    roots[2 * i] = random.nextGaussian() * 2;
                }
            }
            double[] c = fromRoots(roots);
            double scale = 0.5 + random.nextDouble() * 10;
            for (int i = 0; i < c.length; i++) {
                c[i] *= scale;
            }
            List<Complex> found = Polynomials.roots(c);
            // every root found makes the polynomial vanish, relative to its size there
            for (Complex z : found) {
                double size = 0;
                for (double x : c) {
                    size = size * z.abs() + Math.abs(x);
                }
                assertTrue(Polynomials.evaluate(c, z).abs() <= 1e-9 * size, z + " of " + Arrays.toString(c));
            }
            assertRoots(found, 1e-5, roots);
        }
    }

    @Test
    void rootsAreOrderedByDecreasingModulus() {
        List<Complex> r = Polynomials.roots(fromRoots(0.1, 0, -0.9, 0, 0.5, 0.2, 0.5, -0.2));
        for (int i = 1; i < r.size(); i++) {
            assertTrue(r.get(i - 1).abs() >= r.get(i).abs(), r.toString());
        }
    }
}

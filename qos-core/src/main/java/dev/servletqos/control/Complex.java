package dev.servletqos.control;

/**
 * A complex number, here a root of a polynomial or a pole of a closed loop. Immutable.
 *
 * @param re the real part
 * @param im the imaginary part
 */
public record Complex(double re, double im) {

    /** The modulus {@code |z|}: for a pole, how fast its mode decays per period (stable below 1). */
    public double abs() {
        return Math.hypot(re, im);
    }

    @Override
    public String toString() {
        if (im == 0) {
            return Double.toString(re);
        }
        return re + (im < 0 ? " - " : " + ") + Math.abs(im) + "i";
    }
}

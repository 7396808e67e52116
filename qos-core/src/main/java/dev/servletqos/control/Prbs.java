package dev.servletqos.control;

/**
 * A pseudo-random binary sequence for exciting a plant during system identification (paper 001 section IV.B:
 * "a pseudo-random digital white noise generator to randomly switch two classes' process budgets between two
 * input values"): the maximal-length sequence of the 31-bit linear feedback shift register with feedback
 * polynomial {@code x^31 + x^28 + 1} (PRBS31, ITU-T O.150), which repeats only after {@code 2^31 - 1} bits and
 * whose autocorrelation is flat, like white noise's. The seed picks the starting state, so the same seed gives
 * the same sequence (paper 001 validates a model by re-running with another seed). Not thread-safe.
 */
public final class Prbs {

    private static final int MASK = 0x7FFF_FFFF;

    private int state;

    /**
     * @param seed any number; it is mixed (SplitMix64's finaliser) into the register's first state, so that
     *             small or similar seeds do not start from sparse states, which would open the sequence with
     *             long runs of zeros
     */
    public Prbs(long seed) {
        long z = seed + 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        z ^= z >>> 31;
        int s = (int) (z ^ (z >>> 31)) & MASK;
        this.state = s != 0 ? s : 0x2545_F491;
    }

    /** The next bit. */
    public boolean nextBit() {
        int bit = ((state >>> 30) ^ (state >>> 27)) & 1;
        state = ((state << 1) | bit) & MASK;
        return bit == 1;
    }

    /** {@code high} or {@code low}, by the next bit. */
    public double next(double low, double high) {
        return nextBit() ? high : low;
    }
}

package dev.servletqos.control;

import java.util.List;

/**
 * A {@link ControlLaw} that tells what its loops saw and did in the last period, so that the control loop
 * can publish it as meters after each call to {@link #next}.
 */
public interface ObservableLaw extends ControlLaw {

    /**
     * The readings of the last period, one per loop, in class order; empty before the first period. Safe to
     * call from another thread than the one calling {@link #next} (the list is immutable and published whole).
     */
    List<LoopReading> readings();
}

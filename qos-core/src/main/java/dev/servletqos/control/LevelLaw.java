package dev.servletqos.control;

/**
 * A control law that sets the classes' content levels from the server's utilization, and tells what it saw,
 * so that the control loop can publish it as meters after each call to {@link #next}.
 */
public interface LevelLaw extends ControlLaw {

    /**
     * The last period's status; before the first period a status without numbers. Safe to call from another
     * thread than the one calling {@link #next} (immutable, published whole).
     */
    UtilizationStatus utilization();
}

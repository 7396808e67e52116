package dev.servletqos.sim;

/**
 * What the simulation records per class and per period: counts of events in the period, means over the
 * requests of the period (NaN when there were none; {@link #weight()} names the count they are taken over),
 * and levels (a value at the end of the period, or a time average over it).
 */
public enum Metric {
    /** Requests that entered the engine. */
    ARRIVALS("arrivals", "requests"),
    /** Permits granted, at once or after waiting in the queue. */
    GRANTS("grants", "requests"),
    /** Requests that finished service. */
    COMPLETIONS("completions", "requests"),
    /** Requests refused at entry (503): refused new sessions and full queues. */
    REJECTIONS("rejections", "requests"),
    /** Requests that waited longer than their class's maximum wait (503). */
    EXPIRATIONS("expirations", "requests"),
    /** Mean queue delay (entry to permit; 0 for a request run at once) of the requests granted in the period. */
    QUEUE_DELAY_MEAN("queue_delay_mean", "s"),
    /** 95th percentile (nearest rank) of the same delays. */
    QUEUE_DELAY_P95("queue_delay_p95", "s"),
    /** Mean response time (entry to end of service) of the requests completed in the period. */
    RESPONSE_TIME_MEAN("response_time_mean", "s"),
    /** Mean service time (start on a worker to end) of the requests completed in the period. */
    SERVICE_TIME_MEAN("service_time_mean", "s"),
    /** The class's budget in the engine at the end of the period. */
    BUDGET("budget", "permits"),
    /** The engine's queue of the class at the end of the period. */
    QUEUED("queued", "requests"),
    /** Permits the class holds in the engine at the end of the period. */
    EXECUTING("executing", "permits"),
    /** Time-average number of the class's requests waiting in the engine's queue. */
    QUEUED_MEAN("queued_mean", "requests"),
    /** Time-average number of permits the class held (in service or waiting for a worker). */
    BUSY_MEAN("busy_mean", "permits"),
    /** Time-average number of the class's requests entered and not ended (queued + holding a permit). */
    IN_SYSTEM_MEAN("in_system_mean", "requests"),
    /** Sessions started (first attempts and retries). */
    SESSIONS_STARTED("sessions_started", "sessions"),
    /** Sessions whose every request completed. */
    SESSIONS_COMPLETED("sessions_completed", "sessions"),
    /** Sessions whose first request was refused at entry. */
    SESSIONS_REFUSED("sessions_refused", "sessions"),
    /** Admitted sessions that lost a request (refused later, or expired in the queue). */
    SESSIONS_FAILED("sessions_failed", "sessions"),
    /** Sessions in progress at the end of the period. */
    SESSIONS_ACTIVE("sessions_active", "sessions"),
    /** Users of a closed class at the end of the period (0 for an open class). */
    USERS("users", "users");

    private final String column;
    private final String unit;

    Metric(String column, String unit) {
        this.column = column;
        this.unit = unit;
    }

    /** The CSV column name (lowercase, underscores). */
    public String column() {
        return column;
    }

    /** The unit of one value (for a count: of the events counted). */
    public String unit() {
        return unit;
    }

    /**
     * For a per-request mean: the count it is taken over, its weight when periods are combined; null for
     * everything else (the 95th percentile too: percentiles of periods do not combine, they are averaged).
     */
    public Metric weight() {
        switch (this) {
            case QUEUE_DELAY_MEAN:
                return GRANTS;
            case RESPONSE_TIME_MEAN:
            case SERVICE_TIME_MEAN:
                return COMPLETIONS;
            default:
                return null;
        }
    }
}

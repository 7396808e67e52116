package dev.servletqos.workload;

import java.time.Duration;
import java.util.Objects;

/**
 * One step of a session: the user thinks for {@code thinkTime} (reading the previous page), then requests
 * {@code page}, then what the page embeds. Immutable.
 *
 * @param page      the page requested
 * @param thinkTime the pause before the request, zero or more
 */
public record Step(Page page, Duration thinkTime) {

    public Step {
        Objects.requireNonNull(page, "page");
        Objects.requireNonNull(thinkTime, "thinkTime");
        if (thinkTime.isNegative()) {
            throw new IllegalArgumentException("step " + page.name() + ": thinkTime must not be negative, was "
                    + thinkTime);
        }
    }

    /** The page requested without think time (consecutive requests, as in paper 004's figure 14). */
    public static Step of(Page page) {
        return new Step(page, Duration.ZERO);
    }
}

package dev.servletqos.workload;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One planned session: the user's class, which returning user it is (whose tier cookie it carries), and the
 * requests of its steps with their placeholders filled. What each page embeds is not planned: it comes from
 * the page's answer. Immutable.
 *
 * @param userClass     the user's class
 * @param returningUser 0..{@code returningUsers - 1} for a returning user, -1 for a new visitor
 * @param calls         one per step of the workload, in order
 */
public record Visit(UserClass userClass, int returningUser, List<Call> calls) {

    /**
     * One step's request.
     *
     * @param step the step
     * @param path its path and query, placeholders filled
     */
    public record Call(Step step, String path) {

        public Call {
            Objects.requireNonNull(step, "step");
            Objects.requireNonNull(path, "path");
        }

        public Page page() {
            return step.page();
        }

        public String method() {
            return step.page().method();
        }

        public Duration thinkTime() {
            return step.thinkTime();
        }
    }

    public Visit {
        Objects.requireNonNull(userClass, "userClass");
        calls = List.copyOf(calls);
    }
}

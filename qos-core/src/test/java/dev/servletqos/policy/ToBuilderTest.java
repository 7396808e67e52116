package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link QosPolicy#toBuilder()} gives back the builder that built the policy: a change made on it (the Jetty
 * handler's {@code setMaxExecuting} on a policy built in Java) means what it means when written in the first
 * place, not a change to settings the policy worked out from what was left unset.
 */
class ToBuilderTest {

    private static QosPolicy.Builder minimal() {
        return QosPolicy.builder()
                .addClass(ClassPolicy.named("premium").withDelayTarget(Duration.ofMillis(250)))
                .addClass(ClassPolicy.named("basic").withDelayTarget(Duration.ofSeconds(1)))
                .defaultClass("basic");
    }

    @Test
    void aMaxExecutingSetOnTheBuilderOfABuiltPolicyIsAsIfGivenFromTheStart() {
        QosPolicy given = minimal().maxExecuting(8).build();
        QosPolicy later = minimal().build().toBuilder().maxExecuting(8).build();
        assertEquals(given, later);
        assertEquals(8, later.classes().get(0).capacity().budget(), "the budget follows the limit it defaults to");
        assertEquals(ControlPolicy.Capacity.FIXED, later.control().capacity(), "a given limit is a fixed one");
        assertEquals(ControlPolicy.Admission.TRIGGERS, later.control().admission());
    }

    @Test
    void aBuiltPolicyRebuiltUnchangedIsTheSame() {
        QosPolicy p = minimal().build();
        assertEquals(p, p.toBuilder().build());
        QosPolicy q = minimal().maxExecuting(12).build();
        assertEquals(q, q.toBuilder().build());
    }
}

package dev.servletqos.boot;

import dev.servletqos.policy.PolicyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on a bad servlet-qos setting: names the property ({@code servlet-qos.<key>}), the
 * value and the reason the policy parser gave, and says how to fix it.
 */
class PolicyFailureAnalyzer extends AbstractFailureAnalyzer<PolicyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PolicyException cause) {
        String key = cause.key();
        String property = key == null ? "servlet-qos.*" : PolicySource.PREFIX + "." + key;
        String description = "servlet-qos could not start: the setting " + property + " is not valid.\n\n    "
                + cause.getMessage() + "\n";
        String action = key == null
                ? "Fix the servlet-qos.* properties (or the file servlet-qos.policy names) as the message says."
                : "Fix " + property + " in the application's properties" + (cause.getMessage().startsWith(
                PolicySource.ORIGIN) ? "" : " (or " + key + " in the file servlet-qos.policy names)")
                + ". docs/configuration.md lists every policy key with its default and range, docs/spring-boot.md "
                + "the starter's own. Or turn servlet-qos off: servlet-qos.enabled=false.";
        return new FailureAnalysis(description, action, cause);
    }
}

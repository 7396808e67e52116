package dev.servletqos.tomcat;

import dev.servletqos.testkit.FaultInjectionSoakSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/**
 * The fault-injection soak over HTTP/1.1 and h2c against the portable filter on Tomcat, with stream resets over h2c.
 * Tomcat 11.0.24 answers another stream 500 when a reset arrives before the first pass of a request that goes
 * asynchronous has returned (docs/security.md, {@link TomcatResetBeforeAsyncTest}) unless the request is completed by
 * a listener, as the adapter does for a request it parked ({@link ResetBeforeParkTest}).
 */
class FilterOnTomcatSoakTest extends FaultInjectionSoakSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withFilterForSoak(dir, policyText, maxThreads);
    }
}

package dev.servletqos.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/** The real-HTTP suite on Boot's embedded Tomcat, with the valve; and Tomcat's traps. */
@ExtendWith(OutputCaptureExtension.class)
@EnabledIf("dev.servletqos.boot.ClassPaths#tomcat")
class OnTomcatTest extends OverHttpSuite {

    @Autowired
    WebServerApplicationContext context;

    @Override
    int busyWorkerThreads() {
        TomcatWebServer server = (TomcatWebServer) context.getWebServer();
        return ((ThreadPoolExecutor) server.getTomcat().getConnector().getProtocolHandler().getExecutor())
                .getActiveCount();
    }

    /**
     * Under Boot, Tomcat's base (against which the valve resolves a relative policy file) is a temporary directory:
     * the starter hands the valve no file, its policy comes from the properties.
     */
    @Test
    void catalinaBaseIsATemporaryDirectoryAndThePolicyComesFromTheProperties() {
        java.io.File base = ((TomcatWebServer) context.getWebServer()).getTomcat().getServer().getCatalinaBase();
        assertThat(base.toPath().toAbsolutePath()).startsWith(
                java.nio.file.Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        assertThat(runtime.origin()).isEqualTo("policy from servlet-qos.* properties");
        assertThat(engine.policy().maxExecuting()).isEqualTo(2);
    }

    /**
     * Boot turns Tomcat's MBean registry off: its MBean server is not the platform one and keeps nothing, so the
     * valve's beans, registered there under server.xml, would be lost. The starter's are on the platform server.
     */
    @Test
    void tomcatsMBeanRegistryIsOffAndTheEnginesBeansAreOnThePlatformServer() {
        javax.management.MBeanServer tomcats = org.apache.tomcat.util.modeler.Registry.getRegistry(null)
                .getMBeanServer();
        javax.management.MBeanServer platform = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        assertThat(tomcats).isNotSameAs(platform);
        // Boot's NoDescriptorRegistry answers with a server that registers nothing and counts nothing (null)
        assertThat(tomcats.getMBeanCount()).as("Tomcat's registry keeps nothing").isIn(null, 0);
        assertThat(platform.isRegistered(dev.servletqos.jmx.QosMBeans.engineName(dev.servletqos.jmx.QosMBeans.DOMAIN,
                runtime.mbeans().engineId()))).isTrue();
    }

    /** Boot maps a plain Filter bean for REQUEST only: the starter names it and the fix at startup. */
    @Test
    void aFilterMappedWithoutAsyncIsNamedAtStartupWithTheFix(CapturedOutput output) {
        assertThat(context.getWebServer()).isInstanceOf(TomcatWebServer.class);
        assertThat(output.getAll()).contains("servlet-qos: the filters [countingFilter] are registered without "
                + "the ASYNC dispatcher type").contains("setDispatcherTypes(DispatcherType.REQUEST");
    }
}

# servlet-qos for a Jetty 12 base: copy this file to ${jetty.base}/modules/, etc/servlet-qos.xml to
# ${jetty.base}/etc/ and qos-jetty-<version>-all.jar to ${jetty.base}/lib/ext/, write the policy file
# (docs/configuration.md) and run: java -jar $JETTY_HOME/start.jar --add-modules=servlet-qos

[description]
Installs servlet-qos (dev.servletqos.jetty.QosHandler) at the root of the Handler tree: requests are
classified into service classes, new sessions are admitted only while there is capacity, and requests wait
in per-class queues (holding no thread) in front of every context.

[tags]
server
handler

[depend]
server
ext

[xml]
etc/servlet-qos.xml

[ini-template]
# tag::documentation[]
## The policy file (a relative path is resolved against jetty.base).
# servlet-qos.policy=etc/qos.properties

## Overrides of the policy file's max-executing, scheduling and default-class.
## Keep max-executing below the thread pool's maxThreads, and every max-wait below the
## connectors' idle timeout by more than 1.1 s (start fails otherwise).
# servlet-qos.maxExecuting=32
# servlet-qos.scheduling=strict-priority
# servlet-qos.defaultClass=basic
# end::documentation[]

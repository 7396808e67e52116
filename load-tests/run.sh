#!/usr/bin/env bash
# The servlet-qos load test (docs/load-tests.md): builds the sample shop and the Gatling simulations, then for
# QoS on and off starts the shop on a free port of 127.0.0.1, measures it at 1x and 4x capacity, stops it, and
# writes load-tests/results.md (with --smoke: load-tests/target/results-smoke.md) and the Gatling HTML reports
# under load-tests/target/gatling/.
#
#   load-tests/run.sh [--full|--smoke] [--container tomcat|jetty] [--capacity N] [--load N] [--qos on,off]
#                     [--policy FILE] [--jar FILE] [--server-command CMD] [--results FILE] [--reports DIR]
#
# --full (the default) takes about 6 minutes and exits with status 1 when a target is missed; --smoke takes
# about a minute and checks only that everything runs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SKIP_BUILD:-}" ]]; then
  ./mvnw -B -q -ntp -DskipTests -pl samples,load-tests -am package
fi
exec java --add-opens=java.base/java.lang=ALL-UNNAMED -Xmx2g \
  -cp "load-tests/target/classes:$(cat load-tests/target/classpath.txt)" \
  dev.servletqos.loadtests.LoadTestRun "$@"

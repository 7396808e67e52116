#!/usr/bin/env bash
# Runs the JMH benchmarks of qos-core on demand (not in CI), with the allocation profiler.
#   qos-core/bench.sh                      # all benchmarks, -prof gc
#   qos-core/bench.sh RequestPath -f 3     # extra JMH arguments are passed through
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -B -pl qos-core -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test
cp="qos-core/target/test-classes:qos-core/target/classes:$(cat qos-core/target/bench-classpath.txt)"
exec java -cp "$cp" org.openjdk.jmh.Main -prof gc "${@:-RequestPath}"

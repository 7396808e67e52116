#!/usr/bin/env bash
# The request path's JMH figures of two checkouts side by side, alternating (issue 24; docs/performance.md):
#   qos-core/bench-ab.sh ROUNDS DIR_A DIR_B
# Per round and checkout, in turn: an admitted session's and a stateless request, one thread (ns/op, B/op with
# -prof gc); then the admitted session's throughput with one thread and with two, each its own session (ops/us,
# -bm thrpt), and the ratio; then the machine's own ceiling, work that shares no memory on one thread and two
# (RequestPathBenchmark.ceiling*: on cores shared with other work two threads give less than twice one).
# JMH runs at nice -10 (NICE=0 to change) so that the other jobs on the machine get less of it.
# Each checkout must be built first (never build inside a checkout others use: copy it):
#   (cd DIR && ./mvnw -q -B -o -pl qos-core -am test-compile dependency:build-classpath \
#        -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test)
# A checkout from before issue 24 has no two-thread benchmark: copy this one's RequestPathBenchmark.java and
# FixedRequest.java (qos-core/src/test/java/dev/servletqos/bench/) into it before building (test code only).
# Logs and CSV in ${OUT:-/tmp/bench-ab}.
set -euo pipefail
rounds=$1; shift
out=${OUT:-/tmp/bench-ab}
mkdir -p "$out"
params=(-p capacity=fixed -p level=full -p addressLimit=on)
for r in $(seq 1 "$rounds"); do
  for d in "$@"; do
    name=$(basename "$d")
    cp="$d/qos-core/target/test-classes:$d/qos-core/target/classes:$(cat "$d/qos-core/target/bench-classpath.txt")"
    nice -n "${NICE:--10}" java -cp "$cp" org.openjdk.jmh.Main -prof gc -f 1 -wi 3 -i 5 -w 1 -r 1 "${params[@]}" \
      'RequestPathBenchmark.(admittedSessionOneThread|statelessOneThread)' > "$out/$name-$r-time.log" 2>&1
    nice -n "${NICE:--10}" java -cp "$cp" org.openjdk.jmh.Main -bm thrpt -tu us -f 1 -wi 3 -i 9 -w 1 -r 1 "${params[@]}" \
      'RequestPathBenchmark.(admittedSession|ceiling)(OneThread|TwoThreads)$' > "$out/$name-$r-thrpt.log" 2>&1
    echo "round $r $name:"
    grep -E "^RequestPath.*(OneThread|gc.alloc.rate.norm) " "$out/$name-$r-time.log" | awk '{print "  " $1, $(NF-3), $(NF-1), $NF}'
    # per benchmark the median of its iterations (bursts of other jobs on the machine spoil some of them), in the
    # order JMH runs them: admittedSessionOneThread, admittedSessionTwoThreads, ceilingOneThread, ceilingTwoThreads
    awk '/^# Benchmark: /{n++; name[n]=$3; sub(/.*\./, "", name[n]); k=0} /^Iteration /{v[n, ++k]=$3; c[n]=k}
         END {for (i = 1; i <= n; i++) {m = c[i]; for (a = 1; a <= m; a++) s[a] = v[i, a];
                for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (s[b] < s[a]) {t = s[a]; s[a] = s[b]; s[b] = t}
                med[i] = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2;
                printf "  %s median of %d iterations %.2f ops/us\n", name[i], m, med[i]}
              if (n == 4) printf "  two threads / one: %.2f (ceiling, work sharing nothing: %.2f)\n", med[2] / med[1], med[4] / med[3]}' \
      "$out/$name-$r-thrpt.log"
  done
done

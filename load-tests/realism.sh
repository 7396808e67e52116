#!/usr/bin/env bash
# Issue 22's scenarios measured by hand (docs/load-tests.md, "Realism suite"): runs RealismSuite on the Tomcat valve
# and the Jetty handler, longer than CI does, with QoS on and (for comparison) off, and prints each run's table
# (also written to qos-tomcat/target/realism-*.md and qos-jetty/target/realism-*.md). A run whose bars fail still
# prints its table; the script carries on.
#
#   load-tests/realism.sh [--scale N] [--qos on|off|both] [--container tomcat|jetty|both]
#
# --scale 4 (the default) runs every scenario four times as long as CI: about 6 to 8 minutes a container and mode.
set -uo pipefail
cd "$(dirname "$0")/.."
scale=4 qos=both container=both
while [[ $# -gt 0 ]]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --qos) qos="$2"; shift 2 ;;
    --container) container="$2"; shift 2 ;;
    *) echo "usage: $0 [--scale N] [--qos on|off|both] [--container tomcat|jetty|both]" >&2; exit 2 ;;
  esac
done
modes=(on off); [[ "$qos" != both ]] && modes=("$qos")
containers=(tomcat jetty); [[ "$container" != both ]] && containers=("$container")
for c in "${containers[@]}"; do
  case "$c" in
    tomcat) module=qos-tomcat test=RealismValveTest ;;
    jetty) module=qos-jetty test=RealismHandlerTest ;;
    *) echo "unknown container $c" >&2; exit 2 ;;
  esac
  for m in "${modes[@]}"; do
    echo "== $c, QoS $m, scale $scale"
    ./mvnw -B -ntp -pl "$module" -am verify -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
      -Dfailsafe.skip=true -Drealism.scale="$scale" -Drealism.qos="$m" > "$module/target/realism-$m.log" 2>&1
    echo "   tests: $(grep -E 'Tests run:.*Fail' "$module/target/realism-$m.log" | tail -1)"
    if [[ "$m" == off ]]; then
      cat "$module"/target/realism-*-off.md
    else
      ls "$module"/target/realism-*.md | grep -v -- '-off.md$' | xargs cat
    fi
  done
done

#!/usr/bin/env bash
# Where an adapter's cost goes, at steady state (docs/performance.md, "Where the time goes"): each variant's server
# (bench/overhead.sh's OverheadServer) in turn, alone on the machine, settled under load until the JIT compiler is
# done, then profiled with async-profiler (bench's ProfilerControl) over a measured wrk run. Prints per variant the
# req/s, the server's CPU time per request (from /proc, over the measured run), that time split by thread (request
# threads, the poller, JIT, GC), and then each adapter against its container's plain server: the frames whose
# inclusive time per request grew most, and the adapter's own calls. Run by hand, never in CI; about 4 minutes.
#
#   bench/profile.sh [--settle S] [--duration S] [--case sessions|api] [VARIANT...]
#
# VARIANT: tomcat-plain, tomcat-valve, tomcat-filter, jetty-plain, jetty-handler (default: tomcat-plain tomcat-valve
# jetty-plain jetty-handler), each optionally KIND@DIR to run the libraries of another checkout (built there first
# with ./mvnw -q -DskipTests -pl bench -am package) in this checkout's server. Writes bench/target/profile/: VARIANT.collapsed (the stacks, for a
# flame graph), the servers' logs and report.txt (also printed). Needs wrk (installed as bench/overhead.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
settle=30 duration=30 case=sessions
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --settle) settle="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --case) case="$2"; shift 2 ;;
    *) sed -n '2,13p' "$0" >&2; exit 2 ;;
  esac
done
specs=("$@")
(( ${#specs[@]} )) || specs=(tomcat-plain tomcat-valve jetty-plain jetty-handler)
command -v wrk > /dev/null || { echo "wrk is missing: bench/overhead.sh installs it" >&2; exit 1; }
if [[ -z "${SKIP_BUILD:-}" ]]; then
  # shellcheck disable=SC2086
  ./mvnw -B -q -ntp ${MVN_FLAGS:-} -DskipTests -pl bench -am package
fi
profiler_jar=$(tr ':' '\n' < "$root/bench/target/classpath.txt" | grep '/async-profiler-')
out="$root/bench/target/profile"
rm -rf "$out"
mkdir -p "$out"
cp "$root/bench/qos.properties" "$out/qos.properties" # README step 2, the minimal policy
QOS_SECRET=$(head -c 24 /dev/urandom | base64)
export QOS_SECRET
ticks=$(getconf CLK_TCK)
pid=
trap '[[ -n "$pid" ]] && kill "$pid" 2> /dev/null || true' EXIT
: > "$out/runs.txt"
for spec in "${specs[@]}"; do
  kind=${spec%%@*} dir=$root name=$kind
  if [[ "$spec" == *@* ]]; then dir=$(cd "${spec#*@}" && pwd); name="$kind@$(basename "$dir")"; fi
  d="$out/$name.d"
  mkdir -p "$d"
  # this checkout's harness (the server and its profiler control) over the libraries of the variant's checkout
  java -Dbench.profile="$d" -Xms512m -Xmx512m -cp "$root/bench/target/classes:$profiler_jar:$(cat "$dir/bench/target/classpath.txt")" \
    dev.servletqos.e2e.OverheadServer "$kind" 0 "$out/qos.properties" > "$out/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do grep -q '^READY ' "$out/$name.log" && break; sleep 0.1; done
  port=$(awk '/^READY /{print $2; exit}' "$out/$name.log")
  [[ -n "$port" ]] || { cat "$out/$name.log" >&2; exit 1; }
  url="http://127.0.0.1:$port/ok"
  args=(-H 'Accept: application/json' "$url")
  if [[ $case == sessions ]]; then
    # 64 admitted sessions; a plain server gets the last adapter's cookies, or, when it runs first, 64 of the
    # same shape and length (116 characters), so that it parses the same headers as the adapters' servers
    if [[ $kind == *-plain && ! -s "$out/cookies.txt" ]]; then
      python3 -c 'import base64, os, time
for _ in range(64):
    b = lambda n: base64.urlsafe_b64encode(os.urandom(n)).decode().rstrip("=")
    t = int(time.time())
    print(f"QOSSESSION=v2.basic.{b(22)}.{t}.{t + 1800}.{b(32)}")' > "$out/cookies.txt"
    fi
    if [[ $kind != *-plain ]]; then
      : > "$out/cookies.txt"
      for _ in $(seq 64); do
        for _ in $(seq 50); do
          c=$(curl -s -o /dev/null -D - -H 'Accept: text/html,*/*;q=0.8' "$url" | tr -d '\r' \
            | awk -F'[ ;]' 'tolower($1)=="set-cookie:" && $2 ~ /^QOSSESSION=/{print $2; exit}' || true)
          [[ -n "$c" ]] && break
          sleep 0.2
        done
        [[ -n "$c" ]] || { echo "$name: no admission cookie after 50 requests" >&2; exit 1; }
        echo "$c" >> "$out/cookies.txt"
      done
    fi
    args=(-s "$root/bench/sessions.lua" "$url" -- "$out/cookies.txt" 2)
  fi
  wrk -t 2 -c 64 -d "${settle}s" "${args[@]}" > /dev/null
  touch "$d/start"
  while [[ ! -e "$d/started" ]]; do sleep 0.02; grep -q 'PROFILER FAILED' "$out/$name.log" && exit 1; done
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  wrk -t 2 -c 64 -d "${duration}s" "${args[@]}" > "$out/wrk-$name.txt"
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  touch "$d/stop"
  while [[ ! -e "$d/stopped" ]]; do sleep 0.05; done
  kill "$pid"; wait "$pid" 2> /dev/null || true; pid=
  mv "$d/profile.collapsed" "$out/$name.collapsed"; rm -rf "$d"
  requests=$(awk '/requests in/{print $1}' "$out/wrk-$name.txt")
  rps=$(awk '/^Requests\/sec:/{print $2}' "$out/wrk-$name.txt")
  echo "$name $rps $(( (after - before) * 1000000000 / ticks / requests ))" >> "$out/runs.txt"
  echo "   $name: $rps req/s"
done
python3 "$root/bench/profile.py" "$out" | tee "$out/report.txt"

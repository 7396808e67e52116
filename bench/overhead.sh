#!/usr/bin/env bash
# The end-to-end overhead of servlet-qos (docs/performance.md, "End to end"): the same trivial servlet (a session
# check and "ok") on embedded Tomcat plain, with the valve, with the filter, and on Jetty plain and with the handler,
# each in its own JVM on 127.0.0.1 with the README's minimal policy (step 2), all defaults. wrk drives it, 64
# connections: first each request carrying an admitted session's cookie (bench/sessions.lua), then cookie-less API
# requests (Accept: application/json, admitted one by one). The variants run in turn, round after round, so the
# machine's drift touches each alike; the figure is each adapter's req/s over its container's plain req/s, medians
# of the rounds. Run by hand, never in CI; about 17 minutes with the defaults, 27 with --baseline.
#
#   bench/overhead.sh [--rounds N] [--duration S] [--warmup S] [--settle S] [--connections C] [--threads T]
#                     [--cases sessions,api] [--no-jfr] [--no-wrk-check] [--baseline DIR] [--calibrate N,N...]
#
# --settle S (default 30): before the rounds, every server gets S seconds of each case, unmeasured, so that the JIT
# compiler is done with it: with only the 5 s warm-up, a server with an adapter was still compiling its larger code
# in the measured runs (the handler: 1.2 to 1.7 us of JIT CPU a request, 7 % of the server's), which a server that
# runs for hours never pays.
#
# --baseline DIR: another checkout of the project (a copy: it is built there), whose valve, filter and handler run
# as three more variants (tomcat-valve-before, ...) in the same rounds, against the same plain servers: the before
# and after of a change measured in one run. With JFR, the baseline's valve is recorded too.
#
# --calibrate N,N...: more variants, tomcat-work-N: plain Tomcat with a valve that does nothing but N ns of CPU work
# per request (it reads the clock until N ns have passed). Their ratios to plain say what N ns of work per request
# cost end to end on this machine, against which an adapter's own time (bench/profile.sh) is read.
#
# Writes bench/target/overhead/results.md (also printed), the servers' logs, and with JFR (the default) a recording
# of the valve during one extra sessions run and its top frames (bench/target/overhead/valve-top-frames.txt).
# Set SKIP_BUILD=1 to use the classes already built, MVN_FLAGS for extra Maven flags (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

rounds=3 duration=15 warmup=5 settle=30 connections=64 threads=2 cases=sessions,api jfr=1 wrkcheck=1 baseline=
calibrate=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --settle) settle="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --no-jfr) jfr=0; shift ;;
    --no-wrk-check) wrkcheck=0; shift ;;
    --baseline) baseline=$(cd "$2" && pwd); shift 2 ;;
    --calibrate) calibrate="$2"; shift 2 ;;
    *) sed -n '2,28p' "$0" >&2; exit 2 ;;
  esac
done
variants=(tomcat-plain tomcat-valve tomcat-filter jetty-plain jetty-handler)
adapters=(tomcat-valve tomcat-filter jetty-handler)
if [[ -n "$baseline" ]]; then
  variants=(tomcat-plain tomcat-valve tomcat-valve-before tomcat-filter tomcat-filter-before jetty-plain jetty-handler
    jetty-handler-before)
  adapters+=(tomcat-valve-before tomcat-filter-before jetty-handler-before)
fi
if [[ -n "$calibrate" ]]; then
  IFS=, read -r -a work_list <<< "$calibrate"
  for n in "${work_list[@]}"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "--calibrate: $n is not a number of ns" >&2; exit 2; }
    variants+=("tomcat-work-$n")
  done
fi
IFS=, read -r -a case_list <<< "$cases"

if ! command -v wrk > /dev/null; then
  echo "== installing wrk (Debian's package)"
  if [[ $(id -u) -eq 0 ]]; then apt-get install -y wrk > /dev/null; else sudo apt-get install -y wrk > /dev/null; fi
fi
if [[ -z "${SKIP_BUILD:-}" ]]; then
  echo "== building"
  # shellcheck disable=SC2086
  ./mvnw -B -q -ntp ${MVN_FLAGS:-} -DskipTests -pl bench -am package
  if [[ -n "$baseline" ]]; then
    # shellcheck disable=SC2086
    (cd "$baseline" && ./mvnw -B -q -ntp ${MVN_FLAGS:-} -DskipTests -pl bench -am package)
  fi
fi

out="$root/bench/target/overhead"
rm -rf "$out"
mkdir -p "$out"
cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
# a variant's server: its kind (tomcat-valve, ...) and the class path of its checkout
kind_of() { echo "${1%-before}"; }
cp_of() {
  if [[ $1 == *-before ]]; then echo "$baseline/bench/target/classes:$(cat "$baseline/bench/target/classpath.txt")"
  else echo "$cp"; fi
}
cp "$root/bench/qos.properties" "$out/qos.properties" # README step 2, the minimal policy
QOS_SECRET=$(head -c 24 /dev/urandom | base64)
export QOS_SECRET

declare -A pid port
stop_servers() {
  for v in "${!pid[@]}"; do kill "${pid[$v]}" 2> /dev/null || true; done
  for v in "${!pid[@]}"; do wait "${pid[$v]}" 2> /dev/null || true; done
}
trap stop_servers EXIT

echo "== starting the servers"
for v in "${variants[@]}"; do
  # a fixed heap, so that no server resizes its heap during a run; JVM defaults otherwise
  java -Xms512m -Xmx512m -cp "$(cp_of "$v")" dev.servletqos.e2e.OverheadServer "$(kind_of "$v")" 0 \
    "$out/qos.properties" \
    > "$out/$v.log" 2>&1 &
  pid[$v]=$!
done
for v in "${variants[@]}"; do
  for _ in $(seq 300); do
    grep -q '^READY ' "$out/$v.log" && break
    kill -0 "${pid[$v]}" 2> /dev/null || { cat "$out/$v.log" >&2; echo "$v did not start" >&2; exit 1; }
    sleep 0.1
  done
  port[$v]=$(awk '/^READY /{print $2; exit}' "$out/$v.log")
  [[ -n "${port[$v]}" ]] || { echo "$v did not start in 30 s" >&2; exit 1; }
  echo "   $v: port ${port[$v]}, pid ${pid[$v]}"
done

# One admitted session per connection: a browser's first request, answered with the engine's admission cookie. A
# new session refused (while the engine rations them at start) is asked again a little later.
fetch_cookies() { # variant file [soft]: with soft, a shortfall returns 1 instead of ending the run
  local v=$1 file=$2 soft=${3:-} got=0 tries=0 c
  : > "$file"
  while (( got < connections )); do
    c=$(curl -s -o /dev/null -D - -H 'Accept: text/html,application/xhtml+xml,*/*;q=0.8' \
      "http://127.0.0.1:${port[$v]}/ok" | tr -d '\r' \
      | awk -F'[ ;]' 'NR==1 && $2!="200"{exit} tolower($1)=="set-cookie:" && $2 ~ /^QOSSESSION=/{print $2; exit}' || true)
    if [[ -n "$c" ]]; then echo "$c" >> "$file"; got=$((got + 1)); else sleep 0.2; fi
    tries=$((tries + 1))
    if (( tries >= 20 * connections )); then
      echo "$v: only $got admission cookies after $tries requests" >&2
      [[ -n "$soft" ]] && return 1
      exit 1
    fi
  done
}
# An admission cookie is good for session-cookie.max-age (30 minutes by default) and renewed after half of it; wrk
# keeps sending the cookie it started with, as a browser would not. Past its age every request would be a new
# session (in a run of nine rounds, the last round's were: 0.6 of plain). So the sessions are fetched anew before
# a round once they are ten minutes old.
# A fetch between rounds may find an engine that still rations new sessions after the last round's load (the
# admission law's rate recovers over seconds): an adapter that gives too few keeps its cookies, and is asked again
# before the next round.
fetch_all_cookies() { # [soft]
  local all=1
  for v in "${adapters[@]}"; do
    if fetch_cookies "$v" "$out/cookies-$v.new" "${1:-}"; then
      mv "$out/cookies-$v.new" "$out/cookies-$v.txt"
    else
      echo "   $v: keeping its cookies of $(( ($(date +%s) - fetched) / 60 )) minutes ago" >&2
      all=0
    fi
  done
  # plain servers get the same requests: the valve's cookies (Tomcat) and the handler's (Jetty), unread by them
  cp "$out/cookies-tomcat-valve.txt" "$out/cookies-tomcat-plain.txt"
  cp "$out/cookies-jetty-handler.txt" "$out/cookies-jetty-plain.txt"
  for v in "${variants[@]}"; do
    if [[ $v == tomcat-work-* ]]; then cp "$out/cookies-tomcat-valve.txt" "$out/cookies-$v.txt"; fi
  done
  (( all )) && fetched=$(date +%s)
  return 0
}
refresh_cookies() { # label: fetches new sessions once the last are ten minutes old
  if (( $(date +%s) - fetched > 600 )); then
    echo "   ($1: the admission cookies are ten minutes old, fetching new ones)"
    fetch_all_cookies soft
  fi
}
echo "== fetching $connections admitted sessions from each adapter"
fetch_all_cookies

ticks=$(getconf CLK_TCK)
cores=$(nproc)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run_wrk variant case seconds threads [label]: one wrk run; appends "label variant case req/s non2xx wrkcpu srvcpu"
# to $out/runs.txt (cpu: share of all cores, in %) when a label is given
run_wrk() {
  local v=$1 c=$2 secs=$3 t=$4 label=${5:-} url="http://127.0.0.1:${port[$1]}/ok" args
  if [[ $c == sessions ]]; then
    args=(-s "$root/bench/sessions.lua" "$url" -- "$out/cookies-$v.txt" "$t")
  else
    args=(-H 'Accept: application/json' "$url")
  fi
  local before after
  before=$(cpu_ticks "${pid[$v]}")
  /usr/bin/time -f '%U %S' -o "$out/time.txt" wrk -t "$t" -c "$connections" -d "${secs}s" "${args[@]}" \
    > "$out/wrk.txt" 2>&1 || { cat "$out/wrk.txt" >&2; echo "wrk failed against $v" >&2; exit 1; }
  after=$(cpu_ticks "${pid[$v]}")
  [[ -z "$label" ]] && return 0
  local rps non2xx wrkcpu srvcpu
  rps=$(awk '/^Requests\/sec:/{print $2}' "$out/wrk.txt")
  non2xx=$(awk '/Non-2xx or 3xx responses:/{print $NF}' "$out/wrk.txt")
  if grep -q 'Socket errors' "$out/wrk.txt"; then non2xx="${non2xx:-0}+socket-errors"; fi
  wrkcpu=$(awk -v s="$secs" -v n="$cores" '{printf "%.0f", 100 * ($1 + $2) / (s * n)}' "$out/time.txt")
  srvcpu=$(awk -v a="$after" -v b="$before" -v k="$ticks" -v s="$secs" -v n="$cores" \
    'BEGIN{printf "%.0f", 100 * (a - b) / k / (s * n)}')
  echo "$label $v $c $rps ${non2xx:-0} $wrkcpu $srvcpu" >> "$out/runs.txt"
  printf '   %-10s %-14s %-9s %10s req/s  non-2xx %s  wrk cpu %s%%  server cpu %s%%\n' \
    "$label" "$v" "$c" "$rps" "${non2xx:-0}" "$wrkcpu" "$srvcpu"
}

if (( settle > 0 )); then
  echo "== settling: ${settle} s of each case on every server, unmeasured (the JIT compiler finishes)"
  for v in "${variants[@]}"; do
    for c in "${case_list[@]}"; do run_wrk "$v" "$c" "$settle" "$threads"; done
  done
fi

echo "== $rounds rounds: ${warmup} s warm-up + ${duration} s measured per run, $connections connections," \
  "$threads wrk threads, load average $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$out/runs.txt"
for r in $(seq "$rounds"); do
  if [[ " ${case_list[*]} " == *" sessions "* ]]; then refresh_cookies "round $r"; fi
  for c in "${case_list[@]}"; do
    for v in "${variants[@]}"; do
      run_wrk "$v" "$c" "$warmup" "$threads"
      run_wrk "$v" "$c" "$duration" "$threads" "round$r"
    done
  done
done

if (( wrkcheck )); then
  echo "== is wrk the bottleneck? tomcat-plain, sessions, one wrk thread against two"
  for t in 1 2; do
    run_wrk tomcat-plain sessions "$warmup" "$t"
    run_wrk tomcat-plain sessions "$duration" "$t" "wrk-t$t"
  done
fi

if (( jfr )); then
  refresh_cookies "JFR"
  recorded=(tomcat-valve)
  [[ -n "$baseline" ]] && recorded+=(tomcat-valve-before)
  for v in "${recorded[@]}"; do
    name=valve${v#tomcat-valve}
    echo "== JFR of $v (one more sessions run, not in the table)"
    run_wrk "$v" sessions "$warmup" "$threads"
    jcmd "${pid[$v]}" JFR.start name=overhead settings=profile > /dev/null
    run_wrk "$v" sessions "$duration" "$threads" "jfr"
    jcmd "${pid[$v]}" JFR.stop name=overhead filename="$out/$name.jfr" > /dev/null
    jfr print --events jdk.ExecutionSample --stack-depth 64 "$out/$name.jfr" > "$out/$name-samples.txt"
    python3 "$root/bench/topframes.py" "$out/$name-samples.txt" > "$out/$name-top-frames.txt"
  done
fi

for v in "${variants[@]}"; do
  curl -s -H 'Accept: application/json' "http://127.0.0.1:${port[$v]}/stats" | sed "s/^/   $v: /" \
    >> "$out/stats.txt"
done

python3 "$root/bench/summary.py" "$out" "$rounds" "$duration" "$warmup" "$connections" "$threads" \
  "$settle" > "$out/results.md"
cat "$out/results.md"
for f in "$out"/valve-top-frames.txt "$out"/valve-before-top-frames.txt; do
  if [[ -f "$f" ]]; then echo "== $(basename "$f")"; cat "$f"; fi
done

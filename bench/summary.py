#!/usr/bin/env python3
"""The table of bench/overhead.sh from its runs.txt: req/s per round and variant, medians, each adapter's ratio to
its container's plain server, the CPU shares of wrk and of the server.

    python3 bench/summary.py OUT_DIR ROUNDS DURATION WARMUP CONNECTIONS THREADS
"""
import collections
import os
import statistics
import sys

# the variants in the order the runs took them (with --baseline, also tomcat-valve-before, ...)
VARIANTS = []
CASES = {"sessions": "admitted sessions (each request with its session's admission cookie)",
         "api": "cookie-less API requests (`Accept: application/json`, admitted one by one)"}


def plain_of(v):
    return v.split("-")[0] + "-plain"


def main():
    out, rounds, duration, warmup, connections, threads = sys.argv[1:7]
    settle = sys.argv[7] if len(sys.argv) > 7 else "0"
    runs = []
    with open(os.path.join(out, "runs.txt"), encoding="utf-8") as f:
        for line in f:
            label, v, case, rps, non2xx, wrkcpu, srvcpu = line.split()
            runs.append((label, v, case, float(rps), non2xx, int(wrkcpu), int(srvcpu)))
            if label.startswith("round") and v not in VARIANTS:
                VARIANTS.append(v)
    print(f"Each server settled first ({settle} s of each case, unmeasured); then "
          f"{rounds} rounds alternating, {warmup} s warm-up + {duration} s measured per run, wrk "
          f"{threads} threads and {connections} connections, all on 127.0.0.1 on the same "
          f"{os.cpu_count()} cores.\n")
    for case, title in CASES.items():
        rs = [r for r in runs if r[2] == case and r[0].startswith("round")]
        if not rs:
            continue
        by = collections.defaultdict(dict)
        for label, v, _, rps, *_ in rs:
            by[label][v] = rps
        print(f"**{title}**, req/s:\n")
        print("| round | " + " | ".join(VARIANTS) + " |")
        print("|---|" + "---|" * len(VARIANTS))
        for label in sorted(by, key=lambda s: int(s[5:])):
            print(f"| {label[5:]} | " + " | ".join(f"{by[label].get(v, 0):,.0f}" for v in VARIANTS) + " |")
        med = {v: statistics.median([by[lb][v] for lb in by if v in by[lb]]) for v in VARIANTS}
        print("| median | " + " | ".join(f"{med[v]:,.0f}" for v in VARIANTS) + " |")
        print("| ratio to plain | " + " | ".join(
            f"**{med[v] / med[plain_of(v)]:.2f}**" if not v.endswith("plain") else "1.00" for v in VARIANTS) + " |")
        print("| per-round ratios | " + " | ".join(
            "" if v.endswith("plain") else ", ".join(
                f"{by[lb][v] / by[lb][plain_of(v)]:.2f}" for lb in sorted(by, key=lambda s: int(s[5:])))
            for v in VARIANTS) + " |")
        cpu = {v: [(r[5], r[6]) for r in rs if r[1] == v] for v in VARIANTS}
        print("| wrk's CPU, % of the machine | " + " | ".join(
            f"{statistics.mean(w for w, _ in cpu[v]):.0f}" for v in VARIANTS) + " |")
        print("| the server's CPU, % | " + " | ".join(
            f"{statistics.mean(s for _, s in cpu[v]):.0f}" for v in VARIANTS) + " |")
        bad = [f"{r[0]} {r[1]}: {r[4]}" for r in rs if r[4] != "0"]
        print("\nNon-2xx answers or socket errors: " + ("; ".join(bad) if bad else "none") + ".\n")
    check = [r for r in runs if r[0].startswith("wrk-t")]
    if check:
        print("**Is wrk the bottleneck?** tomcat-plain, admitted sessions, one run each:\n")
        print("| wrk threads | req/s | wrk's CPU, % | the server's CPU, % |\n|---|---|---|---|")
        for label, v, case, rps, non2xx, w, s in check:
            print(f"| {label[5:]} | {rps:,.0f} | {w} | {s} |")
        print()
    jfr = [r for r in runs if r[0] == "jfr"]
    for label, v, case, rps, non2xx, w, s in jfr:
        print(f"The JFR run ({v}, sessions, recording on): {rps:,.0f} req/s.\n")
    stats = os.path.join(out, "stats.txt")
    if os.path.exists(stats):
        print("The engines' counters at the end:\n\n```")
        with open(stats, encoding="utf-8") as f:
            print(f.read().rstrip())
        print("```")


if __name__ == "__main__":
    main()

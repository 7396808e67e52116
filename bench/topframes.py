#!/usr/bin/env python3
"""Summarises `jfr print --events jdk.ExecutionSample --stack-depth 64` output (bench/overhead.sh): the top frames by
count of samples, and which code each sample was working for: its topmost frame outside the JDK (java.*, jdk.*,
sun.*), so that a HashMap lookup the engine makes counts for the engine.

    python3 bench/topframes.py SAMPLES.txt [N]
"""
import collections
import re
import sys


def owner(frame):
    if frame.startswith("dev.servletqos.e2e."):
        return "the benchmark's servlet"
    if frame.startswith(("dev.servletqos.", "com.github.benmanes.caffeine.")):
        return "servlet-qos"  # with Caffeine, its session table's
    if frame.startswith(("org.apache.catalina.", "org.apache.coyote.", "org.apache.tomcat.")):
        return "Tomcat"
    if frame.startswith("org.eclipse.jetty."):
        return "Jetty"
    if frame.startswith(("java.", "jdk.", "sun.", "javax.")):
        return None
    return "other"


def main():
    path = sys.argv[1]
    top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    stacks, stack, inside = [], None, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if s.startswith("stackTrace = ["):
                stack, inside = [], True
            elif inside and s == "]":
                stacks.append(stack)
                inside = False
            elif inside and s and s != "...":
                stack.append(re.sub(r"\s+line:.*$", "", s))
    if not stacks:
        print("no samples in " + path)
        return
    n = len(stacks)
    top = collections.Counter(st[0] for st in stacks if st)
    owners, qos_methods = collections.Counter(), collections.Counter()
    for st in stacks:
        o, method = "JDK only", None
        for fr in st:
            o2 = owner(fr)
            if o2:
                o, method = o2, fr
                break
        owners[o] += 1
        if o == "servlet-qos":
            qos_methods[method] += 1
    print(f"{n} execution samples (JFR, profile settings)\n")
    print(f"Top {top_n} frames (the sampled method itself), by count:\n")
    print("| # | samples | share | frame |\n|---|---|---|---|")
    for i, (fr, c) in enumerate(top.most_common(top_n), 1):
        print(f"| {i} | {c} | {100 * c / n:.1f} % | `{fr}` |")
    print("\nWho the samples worked for (the topmost frame outside the JDK):\n")
    print("| code | samples | share |\n|---|---|---|")
    for o, c in owners.most_common():
        print(f"| {o} | {c} | {100 * c / n:.1f} % |")
    print(f"\nTop {top_n} servlet-qos methods (with the JDK code they call), by count:\n")
    print("| # | samples | share | method |\n|---|---|---|---|")
    for i, (fr, c) in enumerate(qos_methods.most_common(top_n), 1):
        print(f"| {i} | {c} | {100 * c / n:.1f} % | `{fr}` |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench/profile.sh's report: server CPU per request, split by thread and by frame, each adapter against its plain
server. Input: OUT/runs.txt (name, req/s, server CPU ns per request) and OUT/NAME.collapsed (async-profiler's collapsed
stacks, the thread as first frame). Every figure is CPU time per request in ns: a frame's share of the samples times
the server's CPU per request."""
import collections
import os
import sys

# frames where the adapter hands the request on: what runs below them is the application's, not the adapter's
DOWNSTREAM = ("org/apache/catalina/authenticator/", "org/apache/catalina/core/StandardContextValve",
              "org/apache/catalina/core/ApplicationFilterChain.doFilter", "org/eclipse/jetty/server/handler/ContextHandler.handle",
              "dev/servletqos/e2e/")


def group(thread):
    t = thread.lower()
    if "compilerthre" in t:
        return "jit"
    if "gc" in t or "g1 " in t or "g1_" in t:
        return "gc"
    if "poller" in t or "acceptor" in t:
        return "poller"
    if "exec-" in t or "qtp" in t:
        return "requests"
    return "other"


def ours(frame):
    return frame.startswith("dev/servletqos/") and not frame.startswith("dev/servletqos/e2e/")


def load(path, cpu):
    inclusive, groups, own, own_frames = collections.Counter(), collections.Counter(), 0, collections.Counter()
    total = 0
    for line in open(path, encoding="utf-8"):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        n = int(n)
        total += n
        frames = stack.split(";")
        groups[group(frames[0])] += n
        for f in set(frames[1:]):
            inclusive[f] += n
        last = max((i for i, f in enumerate(frames) if ours(f)), default=-1)
        if last >= 0 and not any(f.startswith(DOWNSTREAM) for f in frames[last + 1:]):
            own += n
            for f in set(frames[1:]):
                if ours(f):
                    own_frames[f] += n
    k = cpu / total if total else 0
    scale = lambda c: collections.Counter({f: v * k for f, v in c.items()})
    return scale(inclusive), scale(groups), own * k, scale(own_frames), total


def main(out):
    runs = [line.split() for line in open(os.path.join(out, "runs.txt"), encoding="utf-8")]
    data = {}
    print("CPU time of the server per request, ns (async-profiler samples over the measured run, scaled to the "
          "process's CPU time from /proc)\n")
    print(f"{'variant':<28} {'req/s':>10} {'cpu/req':>8} {'requests':>9} {'poller':>7} {'jit':>6} {'gc':>5} "
          f"{'other':>6} {'adapter':>8} {'samples':>8}")
    for name, rps, cpu in runs:
        inc, groups, own, own_frames, samples = load(os.path.join(out, name + ".collapsed"), int(cpu))
        data[name] = (inc, own_frames)
        print(f"{name:<28} {float(rps):>10,.0f} {int(cpu):>8,} {groups['requests']:>9,.0f} {groups['poller']:>7,.0f} "
              f"{groups['jit']:>6,.0f} {groups['gc']:>5,.0f} {groups['other']:>6,.0f} {own:>8,.0f} {samples:>8,}")
    for name, _, _ in runs:
        kind = name.split("@")[0]
        if kind.endswith("-plain"):
            continue
        plain = next((n for n, _, _ in runs if n.split("@")[0] == kind.split("-")[0] + "-plain"), None)
        inc, own_frames = data[name]
        print(f"\n== {name}: its own calls (inclusive, ns per request; the application below it left out)")
        for f, v in sorted(own_frames.items(), key=lambda x: -x[1])[:14]:
            print(f"   {v:7,.0f}  {f}")
        if plain:
            base = data[plain][0]
            print(f"\n== {name} against {plain}: the frames that grew most (inclusive, ns per request)")
            grown = sorted(set(inc) | set(base), key=lambda f: -(inc.get(f, 0) - base.get(f, 0)))
            for f in [f for f in grown if not ours(f)][:16]:
                print(f"   {base.get(f, 0):7,.0f} -> {inc.get(f, 0):7,.0f}  {inc.get(f, 0) - base.get(f, 0):+7,.0f}  {f}")


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Summarises how busy the processors were in a Go execution trace.

Reads the text that `go tool trace -d=parsed TRACE` prints (no browser
needed) and reports, over the traced span: how long 0, 1, 2, ... goroutines
were running at once, each P's busy time, and how many goroutines were
created.

Usage: go tool trace -d=parsed trace.out | go/mandelbrot/traceprocs.py
"""

import collections
import re
import sys

EVENT = re.compile(r"^M=\S+ P=(-?\d+) G=\S+ StateTransition Time=(\d+) GoID=(\d+) (\w+)->(\w+)")
TIME = re.compile(r"^M=\S+ P=\S+ G=\S+ \w+ Time=(\d+)")


def main():
    first = last = None
    running = {}  # goroutine -> (P, start)
    busy = collections.Counter()  # P -> ns with a goroutine running
    level = collections.Counter()  # goroutines running at once -> ns
    created = 0
    now = None
    for line in sys.stdin:
        m = TIME.match(line)
        if not m:
            continue
        t = int(m.group(1))
        first = t if first is None else first
        last = t
        if now is not None:
            level[len(running)] += t - now
        now = t
        e = EVENT.match(line)
        if not e:
            continue
        p, g, old, new = int(e.group(1)), e.group(3), e.group(4), e.group(5)
        if old == "NotExist":
            created += 1
        if new == "Running":
            running[g] = (p, t)
        elif old == "Running" and g in running:
            proc, start = running.pop(g)
            busy[proc] += t - start
    if first is None:
        sys.exit("traceprocs: no events: is this `go tool trace -d=parsed` output?")
    for g, (proc, start) in running.items():
        busy[proc] += last - start
    span = last - first
    print(f"traced span {span / 1e6:.1f} ms, {created} goroutines created")
    for n in sorted(level):
        print(f"{n} goroutines running: {level[n] / 1e6:8.1f} ms {100 * level[n] / span:5.1f}%")
    for p in sorted(busy):
        if p >= 0:
            print(f"P{p} busy: {busy[p] / 1e6:8.1f} ms {100 * busy[p] / span:5.1f}%")


if __name__ == "__main__":
    main()

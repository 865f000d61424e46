#!/usr/bin/env python3
"""Interleaved timing of commands on a shared machine.

    scripts/interleave.py ROUNDS cmd args ;; cmd args ;; ...

Each round runs every command once, in turn, with stdout and stderr to
/dev/null; per command it prints the wall time's median, 25th percentile and
minimum (perf_counter around fork/wait4) and the median CPU time (user + sys
from wait4's rusage), in ms. Interleaving spreads a load that changes during
the runs over all commands alike; the CPU times hold up better than the wall
times under load.
"""
import os
import statistics as st
import sys
import time

rounds = int(sys.argv[1])
cmds = [c.split() for c in " ".join(sys.argv[2:]).split(";;")]
walls = [[] for _ in cmds]
cpus = [[] for _ in cmds]
null = os.open(os.devnull, os.O_WRONLY)
for _ in range(rounds):
    for i, c in enumerate(cmds):
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execvp(c[0], c)
        _, status, ru = os.wait4(pid, 0)
        walls[i].append(time.perf_counter() - t0)
        cpus[i].append(ru.ru_utime + ru.ru_stime)
        if status != 0:
            print("%s: exit status %d" % (" ".join(c), status), file=sys.stderr)
for i, c in enumerate(cmds):
    w = sorted(walls[i])
    print("%-44s wall median %.1f p25 %.1f min %.1f | cpu median %.1f ms"
          % (" ".join(c)[-44:], st.median(w) * 1e3, w[len(w) // 4] * 1e3, w[0] * 1e3, st.median(cpus[i]) * 1e3))

#!/usr/bin/env python3
"""Issue 9, item 5: anonymous memory while indexing does not grow with the
number of GPU events; nor (issue 13) with how deep CPU ops nest.  Before: ~24 bytes an event (glibc's qsort copied the
step intervals into the heap; the group statistics' scratch, a track's
displaced rows and the flows grew there too): 472 MB for 20M kernels.

Indexes tiny-kernel traces of 0.4M and 2M events (8 names, 2 streams, a
quarter of the events written out of time order) and samples the peak
RssAnon of tix from /proc: the larger trace may not take more than 8 MB
more than the smaller.  bench/run.sh's memory row does the same with 10M
and 40M (docs/PERFORMANCE.md).  Then ops nested 300 and 12,000 deep: the
parents phase keeps each open op's ancestor list, which grew with the
square of the depth (0.8 GB at 20,000) before those lists were bounded.
Skipped (77) under ASan (ASAN_OPTIONS set).

    rel_memory.py --tix TIX --work DIR
"""
import os
import subprocess
import sys
import time

import reltest
from reltest import tixtest

GROWTH_MB = 8


def write_trace(path, n):
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return path
    with open(path + ".part", "w") as f:
        f.write('{"traceEvents": [\n')
        evs = []
        for i in range(n):
            tid = 7 + (i >> 3) % 2
            ts = i if (tid == 7 or i < n // 2) else n + n // 2 - i  # the late half of stream 8 reversed
            evs.append('{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":%d,"ts":%d,"dur":1}' % (i % 8, tid, ts))
        f.write(",\n".join(evs))
        f.write("\n]}\n")
    os.replace(path + ".part", path)
    return path


def write_nested(path, depth):
    """depth CPU ops, each inside the one before, on one thread."""
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return path
    with open(path + ".part", "w") as f:
        f.write('{"traceEvents": [\n')
        f.write(",\n".join('{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":%d}'
                           % (i % 7, i, 2 * (depth - i)) for i in range(depth)))
        f.write("\n]}\n")
    os.replace(path + ".part", path)
    return path


def peak_anon_kb(cmd):
    """(exit status, peak RssAnon in kB) of cmd, sampled every 2 ms.  One
    parser thread (the second has its own window buffers: a fixed cost the
    larger trace alone would pay, above the split threshold)."""
    env = dict(os.environ, TIX_THREADS="1")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = 0
    status = "/proc/%d/status" % p.pid
    while p.poll() is None:
        try:
            with open(status) as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.002)
    p.stderr.read()
    return p.returncode, peak


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    if "ASAN_OPTIONS" in os.environ:  # scripts/ci-asan.sh: the shadow and quarantine are ASan's
        print("SKIP: anonymous memory under AddressSanitizer is not tix's")
        return reltest.SKIP
    chk = tixtest.Checker("rel_memory")
    d = os.path.join(args.work, "memory")
    os.makedirs(d, exist_ok=True)
    small = write_trace(os.path.join(d, "tiny-400k.json"), 400000)
    large = write_trace(os.path.join(d, "tiny-2m.json"), 2000000)
    peaks = []
    for path in (small, large):
        rc, kb = peak_anon_kb([args.tix, "index", path, "-o", os.path.join(d, "out.tix")])
        chk.check(rc == 0, "%s: indexed" % os.path.basename(path), "rc %d" % rc)
        peaks.append(kb)
        print("      %s: peak anonymous memory %.1f MB" % (os.path.basename(path), kb / 1024.0), flush=True)
    growth = (peaks[1] - peaks[0]) / 1024.0
    chk.check(growth <= GROWTH_MB, "1.6M more GPU events take at most %d MB more anonymous memory" % GROWTH_MB,
              "%.1f MB more (%.1f -> %.1f MB)" % (growth, peaks[0] / 1024.0, peaks[1] / 1024.0))
    deep = []
    for depth in (300, 12000):
        path = write_nested(os.path.join(d, "nested-%d.json" % depth), depth)
        rc, kb = peak_anon_kb([args.tix, "index", path, "-o", os.path.join(d, "out.tix")])
        chk.check(rc == 0, "%s: indexed" % os.path.basename(path), "rc %d" % rc)
        deep.append(kb)
        print("      %s: peak anonymous memory %.1f MB" % (os.path.basename(path), kb / 1024.0), flush=True)
    growth = (deep[1] - deep[0]) / 1024.0
    chk.check(growth <= GROWTH_MB, "ops nested 12,000 deep take at most %d MB more anonymous memory than 300"
              % GROWTH_MB, "%.1f MB more (%.1f -> %.1f MB)" % (growth, deep[0] / 1024.0, deep[1] / 1024.0))
    os.unlink(os.path.join(d, "out.tix"))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

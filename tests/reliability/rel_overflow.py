#!/usr/bin/env python3
"""Issue 9, item 2: nanosecond times near the int64 limits.  Before: a step
near INT64_MAX had offset_ns -1616, a launch delay went negative, a step's
GPU busy time exceeded its GPU time (an interval's end wrapped), and sums
of long durations wrapped.  Now every time lies in TIX_TIME_MIN..MAX
(about +-146 years, index/sink.h): events starting outside are skipped, an
end past it is cut there, with a warning each; sums are held at INT64_MAX.

    rel_overflow.py --tix TIX --work DIR
"""
import json
import os
import shutil

import reltest
from reltest import tixtest

MAX = (2 ** 63 - 1) // 2  # TIX_TIME_MAX, ns


def us(ns):
    """ns as the JSON microsecond text Kineto writes (3 fractional digits)."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%03d" % (sign, ns // 1000, ns % 1000)


def ev(ph, cat, name, tid, ts_ns, dur_ns=None, corr=None, pid=1):
    e = '{"ph":"%s","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%s' % (ph, cat, name, pid, tid, us(ts_ns))
    if dur_ns is not None:
        e += ',"dur":%s' % us(dur_ns)
    if corr is not None:
        e += ',"args":{"correlation":%d}' % corr
    return e + "}"


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_overflow")
    d = os.path.join(args.work, "overflow")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    t0 = MAX - 10 ** 6  # a step 1 ms before the end of the range
    evs = [
        ev("X", "user_annotation", "ProfilerStep#1", 1, t0, 1500),
        ev("X", "cuda_runtime", "cudaLaunchKernel", 1, t0 + 1000, 100, 5),
        ev("X", "kernel", "k1", 7, t0 + 2000, 5 * 10 ** 6, 5, pid=0),         # ends past the range: cut
        ev("X", "cuda_runtime", "cudaLaunchKernel", 1, -MAX + 1000, 100, 6),  # the other end of the range
        ev("X", "kernel", "k2", 8, t0 + 3000, 500, 6, pid=0),                  # launched 2^63 - 2 ns earlier
        ev("X", "kernel", "long", 9, -MAX + 5000, MAX + MAX // 2, None, pid=0),   # two durations whose sum
        ev("X", "kernel", "long", 10, -MAX + 6000, MAX + MAX // 2, None, pid=0),  # passes INT64_MAX
        ev("X", "kernel", "far", 7, 2 ** 62 + 10 ** 9, 1000, None, pid=0),     # outside: skipped
    ]
    trace = os.path.join(d, "edge.json")
    with open(trace, "w") as f:
        f.write('{"traceEvents": [\n%s\n]}' % ",\n".join(evs))

    rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json", "--no-cache")
    chk.check(rc == 0, "summary --by step: exit 0", err[:300])
    chk.check("1 events skipped" in err and "1 events cut short" in err,
              "warnings: one event skipped, one cut at the end of the range", err[:400])
    steps = json.loads(out)["steps"] if rc == 0 else []
    for s in steps:
        chk.check(s["offset_ns"] >= 0 and s["wall_ns"] >= 0, "step %s: offset and wall not negative" % s["name"],
                  "offset %d wall %d" % (s["offset_ns"], s["wall_ns"]))
        chk.check(0 <= s["gpu_busy_ns"] <= s["gpu_ns"], "step %s: 0 <= GPU busy <= GPU time" % s["name"],
                  "busy %d gpu %d" % (s["gpu_busy_ns"], s["gpu_ns"]))
    rc, out, err = tixtest.tix(args, "show", trace, "--kernel", ".", "--format", "json", "--no-cache")
    launches = json.loads(out)["launches"] if rc == 0 else []
    chk.check(rc == 0 and len(launches) == 4, "show: the four kernels in range", "rc %d %r" % (rc, err[:200]))
    for k in launches:
        chk.check(k["offset_ns"] >= 0 and k["dur_ns"] >= 0 and k["start_ns"] + k["dur_ns"] <= MAX,
                  "%s: offset and duration not negative, end in range" % k["name"], repr(k)[:300])
        if k.get("launch"):
            chk.check(k["launch"]["delay_ns"] >= 0, "%s: launch delay not negative" % k["name"],
                      repr(k["launch"]))
    rc, out, err = tixtest.tix(args, "summary", trace, "--format", "json", "--no-cache")
    doc = json.loads(out) if rc == 0 else {"kernels": [], "total_gpu_ns": -1}
    chk.check(doc["total_gpu_ns"] == 2 ** 63 - 1, "the total GPU time is held at INT64_MAX, not wrapped",
              str(doc["total_gpu_ns"]))
    longk = [g for g in doc["kernels"] if g["name"] == "long"]
    chk.check(len(longk) == 1 and longk[0]["total_ns"] == 2 ** 63 - 1 and 0 <= longk[0]["time_pct"] <= 100,
              "a group's total is held at INT64_MAX, its Time %% in 0..100", repr(longk)[:300])
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

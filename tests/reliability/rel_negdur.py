#!/usr/bin/env python3
"""Issue 9, item 3: negative durations.  Kineto writes them for an event
that had not ended when it stopped (dur -1) and when it lost an end (end 0).
Before: clamped to 0 with no warning, so a step marker with a negative
duration (or a "B" with no "E") owned none of its kernels.  Now: kept with
zero duration and a warning; a step marker whose end is unknown lasts
until the next step begins (the last one until the trace's end), so it
owns its kernels.

    rel_negdur.py --tix TIX --work DIR
"""
import json
import os
import shutil

import reltest
from reltest import tixtest

EVENTS = [
    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":-1}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":110,"dur":2,"args":{"correlation":1}}',
    '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":120,"dur":5,"args":{"correlation":1}}',
    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":50}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":210,"dur":2,"args":{"correlation":2}}',
    '{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":220,"dur":-3,"args":{"correlation":2}}',
    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":300,"dur":-1}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":310,"dur":2,"args":{"correlation":3}}',
    '{"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":320,"dur":7,"args":{"correlation":3}}',
    '{"ph":"B","cat":"cpu_op","name":"aten::late_end","pid":1,"tid":1,"ts":400}',
    '{"ph":"E","pid":1,"tid":1,"ts":390}',
    '{"ph":"B","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":500}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":510,"dur":2,"args":{"correlation":4}}',
    '{"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":520,"dur":80,"args":{"correlation":4}}',
]


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_negdur")
    d = os.path.join(args.work, "negdur")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    trace = os.path.join(d, "neg.json")
    with open(trace, "w") as f:
        f.write('{"traceEvents": [\n%s\n]}' % ",\n".join(EVENTS))
    rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json", "--no-cache")
    chk.check(rc == 0 and "5 events have no known end" in err,
              "exit 0 and a warning counting the 5 unknown ends (3 X, an E before its B, a B with no E)",
              "rc %d stderr %r" % (rc, err[:300]))
    steps = json.loads(out)["steps"] if rc == 0 else []
    chk.eq([(s["name"], s["kernels"], s["wall_ns"]) for s in steps],
           [("ProfilerStep#1", 1, 100000), ("ProfilerStep#2", 1, 50000), ("ProfilerStep#3", 1, 200000),
            ("ProfilerStep#4", 1, 100000)],
           "each step owns its kernel; one whose end is unknown lasts until the next step, the last "
           "one to the trace's end (k4's, at 600 us)")
    rc, out, err = tixtest.tix(args, "show", trace, "--kernel", "k2", "--format", "json", "--no-cache")
    k = json.loads(out)["launches"] if rc == 0 else []
    chk.check(len(k) == 1 and k[0]["dur_ns"] == 0 and k[0]["step"] == 1,
              "a kernel with a negative duration: zero duration, in its step", repr(k)[:300])
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

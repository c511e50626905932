#!/usr/bin/env python3
"""Issue 19, item 6: numbers on the command line are checked.  `--step
4294967296` is an error (exit 1), not step 0 with "step": 4294967296 in the
JSON; `--range` values past the int64 nanosecond range (1e400, inf, nan,
9.3e15 ms) are errors, not undefined behaviour in the conversion.

    rel_args.py --tix TIX --work DIR
"""
import os

import reltest
from reltest import tixtest

KERNEL = '{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":3}'
STEP = '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":0,"tid":1,"ts":%d,"dur":100}'
LAUNCH = ('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":0,"tid":1,"ts":%d,"dur":2,'
          '"args":{"correlation":%d}}')
GPU = ('{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":3,'
       '"args":{"correlation":%d}}')


def trace(path):
    ev = []
    for s in range(3):
        ev.append(STEP % (s, 1000 * s))
        for k in range(4):
            c = 10 * s + k + 1
            ev.append(LAUNCH % (1000 * s + 10 * k + 1, c))
            ev.append(GPU % (k, 1000 * s + 10 * k + 5, c))
    with open(path, "w") as f:
        f.write('{"traceEvents": [%s]}' % ",\n".join(ev))


def main():
    args, chk, d = reltest.start(__doc__, "rel_args", "args")
    t = os.path.join(d, "t.json")
    trace(t)
    out = os.path.join(d, "out.json")
    ok = reltest.expect(args, chk, "a valid --step", ("summary", t, "--step", "1", "--format", "json"), 0, ())
    # a number past every step: the trace has no such step (2); past 2^32 - 2
    # it is no step number at all (1)
    reltest.expect(args, chk, "--step 4294967294", ("summary", t, "--step", "4294967294"), 2, ("no step 4294967294",))
    reltest.expect(args, chk, "--step 4294967295", ("summary", t, "--step", "4294967295"), 1, ("--step",))
    for step in ("4294967296", "18446744073709551616", "99999999999999999999999", "-0x1", "1e3"):
        for cmd in (("summary", t, "--format", "json"), ("show", t, "--kernel", "k1"),
                    ("export", t, "-o", out)):
            rc, o, e = tixtest.tix(args, *(cmd + ("--step", step)))
            one, line = reltest.one_line(e)
            chk.check(rc == 1 and one and "--step" in line and '"step": ' not in o,
                      "tix %s --step %s: exit 1, one line naming --step" % (cmd[0], step),
                      "rc %d %s out %r err %r" % (rc, tixtest.describe_crash(rc), o[:200], e[:300]))
    rc, o, e = tixtest.tix(args, "summary", t, t, "--by", "rank", "--step", "4294967296")
    chk.check(rc == 1 and "--step" in e, "summary --by rank --step 4294967296: exit 1",
              "rc %d %r" % (rc, e[:300]))
    for rng in ("1e400:2", "0:1e400", "-1e400:0", "nan:2", "0:nan", "inf:2", "0:inf", "-inf:0",
                "9300000000000:9300000000001", "0:9300000000000000us", "-9300000000000:0",
                "0:1e300s"):
        if os.path.exists(out):
            os.remove(out)
        rc, o, e = tixtest.tix(args, "export", t, "--range", rng, "-o", out)
        one, line = reltest.one_line(e)
        chk.check(rc == 1 and one and "--range" in line and not os.path.exists(out),
                  "export --range %s: exit 1, one line naming --range, nothing written" % rng,
                  "rc %d %s err %r" % (rc, tixtest.describe_crash(rc), e[:300]))
    rc, o, e = tixtest.tix(args, "export", t, "--range", "0:2.5", "-o", out)
    chk.check(rc == 0 and os.path.exists(out), "a valid --range writes", "rc %d %r" % (rc, e[:300]))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

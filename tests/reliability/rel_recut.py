#!/usr/bin/env python3
"""Issue 23, item 4: the two-thread parse moves its cut once, toward where
both threads end at once (parse/parse.c, "The cut moved once"), and the
index stays byte for byte the one-thread one.  Three lopsided traces of the
same events in two blocks, with windows of 32 KB (so that a 25 MB share is
large enough to be probed) and the split from 4 KB:

  ops-first    60,000 ops with 30 args fields each, then 60,000 kernels of
               as many bytes (long names): the first half costs ~2x the
               second, so the cut moves earlier
  ops-last     the same blocks the other way round: the cut moves later,
               the first thread going on past the old cut
  fooled       ops-first whose args hold "},{" in a string, where a cut may
               be guessed inside an event: a wrong guess at the moved cut
               is found by the first thread, and it goes on alone

Each is indexed RUNS times (the move depends on the threads' speeds; under
TIX_TEST_TRIM, the sanitizers' stage: 20,000 events a block in 12 KB windows,
3 runs): every
index must equal the one-thread index, and the cut must have moved the
expected way in at least one run (TIX_TIMING's "the cut moved" line).

    rel_recut.py --tix TIX --work DIR
"""
import json
import os
import re

import reltest
from reltest import tixtest

TRIM = bool(os.environ.get("TIX_TEST_TRIM"))  # the sanitizers' stage: a third of the events, 3 runs
RUNS = 3 if TRIM else 5
N = 20000 if TRIM else 60000
WINDOW = "12288" if TRIM else "32768"  # a share of 512 windows or more is probed
MOVED = re.compile(r"the cut moved from ([0-9.]+)% to ([0-9.]+)%")


def write(path, blocks, fooled=False):
    if os.path.exists(path):
        return path
    with open(path + ".part", "w") as f:
        f.write('{"traceEvents": [\n')
        sep = ""
        for block in blocks:
            for i in range(N):
                if block == "ops":
                    args = {"f%d" % k: k for k in range(30)}
                    if fooled:
                        args["s"] = '"},{"ph":"X"'
                    e = {"ph": "X", "cat": "cpu_op", "name": "aten::op%d" % (i % 50), "pid": 1, "tid": 1,
                         "ts": 10 * i, "dur": 5, "args": args}
                else:
                    e = {"ph": "X", "cat": "kernel", "name": "void kernel_%d<%s>" % (i % 30, "x" * 330),
                         "pid": 0, "tid": 7, "ts": 10 * i + 1, "dur": 3, "args": {"correlation": i}}
                f.write(sep + json.dumps(e))
                sep = ",\n"
        f.write("\n]}\n")
    os.replace(path + ".part", path)
    return path


def main():
    args, chk, d = reltest.start(__doc__, "rel_recut", "recut")
    cases = (("ops-first", ("ops", "kernels"), False, "earlier"),
             ("ops-last", ("kernels", "ops"), False, "later"),
             ("fooled", ("ops", "kernels"), True, None))
    for name, blocks, fooled, way in cases:
        t = write(os.path.join(args.work, "recut-%s-%d.json" % (name, N)), blocks, fooled)
        ref = os.path.join(d, "%s-ref.tix" % name)
        rc, o, e = tixtest.tix(args, "index", t, "-o", ref, env=dict(os.environ, TIX_THREADS="1"))
        chk.check(rc == 0, "%s: the one-thread index" % name, "rc %d %r" % (rc, e[:300]))
        want = open(ref, "rb").read() if rc == 0 else b""
        moves = []
        for k in range(RUNS):
            out = os.path.join(d, "%s-%d.tix" % (name, k))
            env = dict(os.environ, TIX_TIMING="1", TIX_SPLIT_MIN="4096", TIX_PARSE_WINDOW=WINDOW)
            rc, o, e = tixtest.tix(args, "index", t, "-o", out, env=env)
            m = MOVED.search(e)
            if m:
                moves.append((float(m.group(1)), float(m.group(2))))
            chk.check(rc == 0 and open(out, "rb").read() == want,
                      "%s, run %d: the index equals the one-thread one%s" %
                      (name, k, " (the cut moved from %.1f%% to %.1f%%)" % moves[-1] if m else ""),
                      "rc %d %r" % (rc, e[:400]))
        if way == "earlier":
            chk.check(any(b < a for a, b in moves), "%s: the cut moved earlier in some run" % name, repr(moves))
        elif way == "later":
            chk.check(any(b > a for a, b in moves), "%s: the cut moved later in some run" % name, repr(moves))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Issue 23, item 3: the build touches fewer fresh pages (docs/PERFORMANCE.md,
"Round 5").  Checked without timing anything, by what tix says it did:

  windows   simdjson sizes its buffers to the longest array it was given;
            a longer one frees them and first-touches bigger ones.  The
            windows after the first are cut to fit, so on a trace of many
            windows of uneven events (python frames, deep stacks) neither
            parse thread grows them (TIX_TIMING's "buffers grew" line), at
            window sizes of 64 KB and 256 KB, and the index is the same as
            with one window for the whole trace.
  warm      (item 4) the second parse thread, done with its half first,
            faults in the output's ROWS pages and the correlation ids'
            for the rows known so far, while the first still parses
            (TIX_TIMING's "ROWS warmed" line): on a trace whose first half
            costs twice the second, it warms some in at least one of 3
            runs, and the index is byte for byte the one-thread one.

    rel_pages.py --tix TIX --work DIR
"""
import json
import os
import re

import reltest
from reltest import tixtest

WARMED = re.compile(r"ROWS warmed beside the parse: ([0-9.]+) of ([0-9.]+) MB")
GREW = re.compile(r"simdjson's buffers grew (\d+) times \(first half\), (\d+) \(second half\)")


def main():
    args, chk, d = reltest.start(__doc__, "rel_pages", "pages")
    t = tixtest.generate(os.path.join(d, "frames.json"), "--target-mb", "6", "--python-frames",
                         "--stack-depth", "6", "--seed", "23")
    ref = os.path.join(d, "ref.tix")
    rc, o, e = tixtest.tix(args, "index", t, "-o", ref, env=dict(os.environ, TIX_THREADS="1",
                                                                    TIX_PARSE_WINDOW="100000000"))
    chk.check(rc == 0, "the reference index (one window, one thread)", "rc %d %r" % (rc, e[:300]))
    with open(ref, "rb") as f:
        want = f.read()
    for window in (65536, 262144):
        out = os.path.join(d, "w%d.tix" % window)
        env = dict(os.environ, TIX_TIMING="1", TIX_SPLIT_MIN="4096", TIX_PARSE_WINDOW=str(window))
        rc, o, e = tixtest.tix(args, "index", t, "-o", out, env=env)
        m = GREW.search(e)
        chk.check(rc == 0 and m is not None, "windows of %d bytes: indexed on two threads" % window,
                  "rc %d %r" % (rc, e[:400]))
        if m:
            chk.check(m.group(1) == "0" and m.group(2) == "0",
                      "windows of %d bytes: simdjson's buffers never grow after the first window" % window,
                      m.group(0))
        same = rc == 0 and open(out, "rb").read() == want
        chk.check(same, "windows of %d bytes: the index equals the one-window one" % window, out)
    warm(args, chk, d)
    return chk.done()


def warm(args, chk, d):
    """60,000 ops with 30 args fields each (20,000 under TIX_TEST_TRIM),
    then as many kernels of as many bytes (long names): the cut (by events
    and bytes) leaves the first thread ~2x the second's work, so the second
    is idle long before the first is done (the share is too small for the
    cut to move)."""
    n = 20000 if os.environ.get("TIX_TEST_TRIM") else 60000  # the sanitizers' stage: a third
    t = os.path.join(args.work, "lopsided-%d.json" % n)
    if not os.path.exists(t):
        with open(t + ".part", "w") as f:
            f.write('{"traceEvents": [\n')
            sep = ""
            for i in range(n):
                e = {"ph": "X", "cat": "cpu_op", "name": "aten::op%d" % (i % 50), "pid": 1, "tid": 1,
                     "ts": 10 * i, "dur": 5, "args": {"f%d" % k: k for k in range(30)}}
                f.write(sep + json.dumps(e))
                sep = ",\n"
            for i in range(n):
                e = {"ph": "X", "cat": "kernel", "name": "void kernel_%d<%s>" % (i % 30, "x" * 330), "pid": 0,
                     "tid": 7, "ts": 10 * i + 1, "dur": 3, "args": {"correlation": i}}
                f.write(sep + json.dumps(e))
            f.write("\n]}\n")
        os.replace(t + ".part", t)
    ref = os.path.join(d, "lopsided-ref.tix")
    rc, o, e = tixtest.tix(args, "index", t, "-o", ref, env=dict(os.environ, TIX_THREADS="1"))
    chk.check(rc == 0, "lopsided trace: the one-thread index", "rc %d %r" % (rc, e[:300]))
    want = open(ref, "rb").read() if rc == 0 else b""
    warmed = []
    for k in range(3):
        out = os.path.join(d, "lopsided%d.tix" % k)
        env = dict(os.environ, TIX_TIMING="1", TIX_SPLIT_MIN="4096")
        rc, o, e = tixtest.tix(args, "index", t, "-o", out, env=env)
        m = WARMED.search(e)
        chk.check(rc == 0 and m is not None, "lopsided trace, run %d: parsed on two threads, place says "
                  "what was warmed" % k, "rc %d %r" % (rc, e[:400]))
        if m:
            warmed.append(float(m.group(1)))
        chk.check(rc == 0 and open(out, "rb").read() == want,
                  "lopsided trace, run %d: the index equals the one-thread one" % k, out)
    chk.check(any(w > 0 for w in warmed), "the second thread warmed ROWS in at least one of 3 runs",
              "MB warmed: %r" % warmed)


if __name__ == "__main__":
    raise SystemExit(main())

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

    rel_pages.py --tix TIX --work DIR
"""
import os
import re

import reltest
from reltest import tixtest

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
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

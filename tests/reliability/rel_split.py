#!/usr/bin/env python3
"""Issue 9, item 1: plain traces of 64 MB or more (the two-thread split) whose
traceEvents array does not fill the file.  Before the fix, parse_split
guessed its cut up to one window (8 MB) past the end of the mapping and tix
died of SIGSEGV with no message.

Layouts, each ~65-75 MB (written once, reused; the tests lock the disk):
  other-data    {"otherData": "<64 MB>", "traceEvents": [one kernel]}
  blanks        {"traceEvents": [<70 MB of spaces>]}
  tail-events   60 MB of otherData, then ~12 MB of events (1.5 windows)
  two-windows   48 MB of otherData, then ~17 MB of events (just over 2 windows:
                the smallest span that is split)
Each must index with exit 0, no signal, and the right number of kernels, in
one thread and in two (two only with TIX_TEST_TRIM=1).

    rel_split.py --tix TIX --work DIR
"""
import json
import os

import reltest
from reltest import tixtest

MB = 1 << 20
KERNEL = '{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":3}'


def write_once(path, parts):
    """Writes the pieces (str) to path unless a file of that size is there."""
    size = sum(len(p) for p in parts)
    if os.path.exists(path) and os.path.getsize(path) == size:
        return path
    with open(path + ".part", "w") as f:
        for p in parts:
            f.write(p)
    os.replace(path + ".part", path)
    return path


def events(nbytes):
    """Kernel events joined by commas, about nbytes of them; (text, count)."""
    out, n, size = [], 0, 0
    while size < nbytes:
        e = KERNEL % (n % 7, 20 + n)
        out.append(e)
        size += len(e) + 1
        n += 1
    return ",".join(out), n


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_split")
    d = os.path.join(args.work, "split")
    os.makedirs(d, exist_ok=True)

    tail, ntail = events(12 * MB)
    two, ntwo = events(17 * MB)
    layouts = [
        ("other-data", ['{"otherData": "', "x" * (64 * MB), '", "traceEvents": [', KERNEL % (1, 20), "]}"], 1),
        ("blanks", ['{"traceEvents": [', " " * (70 * MB), "]}"], 0),
        ("tail-events", ['{"otherData": "', "x" * (60 * MB), '", "traceEvents": [', tail, "]}"], ntail),
        ("two-windows", ['{"otherData": "', "x" * (48 * MB), '", "traceEvents": [', two, "]}"], ntwo),
    ]
    for name, parts, want in layouts:
        path = write_once(os.path.join(d, name + ".json"), parts)
        # TIX_TEST_TRIM (the ASan suite): the two-thread path only, the one at fault
        for threads in ("2",) if os.environ.get("TIX_TEST_TRIM") else ("2", "1"):
            env = dict(os.environ, TIX_THREADS=threads)
            rc, out, err = tixtest.run([args.tix, "summary", path, "--no-cache", "--format", "json"],
                                       timeout=120, env=env)
            got = None
            if rc == 0:
                got = sum(g["instances"] for g in json.loads(out)["kernels"])
            chk.check(rc == 0 and got == want,
                      "%s (%.0f MB, %s thread%s): exit 0 with %d kernels" %
                      (name, os.path.getsize(path) / MB, threads, "s" if threads == "2" else "", want),
                      "rc %d %s kernels %r stderr %r" % (rc, tixtest.describe_crash(rc), got, err[:300]))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

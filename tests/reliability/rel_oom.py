#!/usr/bin/env python3
"""Issue 21, item 3: running out of memory is the environment's fault, never
the input's.  Under an address-space limit (prlimit --as) swept from the
least in which tix starts (below it the loader cannot map libc) up to what
it needs, for summary of a plain and a gzip trace, index -o, and export of
a built index, every run either succeeds or exits 3 with one
line that says it ran out ("out of memory", or the errno's "Cannot allocate
memory"); never 1 or 2 (a usage error, bad input), never a signal, never a
partial file.  tix_error_oom's class and code are unit-tested in core_oom
(an allocator that fails on command).  Skipped (77) under ASan (its shadow
memory is address space) or without prlimit.

    rel_oom.py --tix TIX --work DIR
"""
import gzip
import os
import shutil
import subprocess
import sys

import reltest
from reltest import tixtest

STEPS = 14


def run_as(args, limit, argv):
    cmd = ["prlimit", "--as=%d" % limit, args.tix] + argv
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def smallest(args, argv, ok):
    """The smallest address space (to 1%) in which argv's exit status is ok."""
    lo, hi = 1 << 20, 1 << 32
    if not ok(run_as(args, hi, argv)[0]):
        return None
    while hi - lo > hi // 100:
        mid = (lo + hi) // 2
        if ok(run_as(args, mid, argv)[0]):
            hi = mid
        else:
            lo = mid
    return hi


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    if "ASAN_OPTIONS" in os.environ:
        print("SKIP: under AddressSanitizer the address space is its shadow's")
        return reltest.SKIP
    if not shutil.which("prlimit"):
        print("SKIP: no prlimit (util-linux)")
        return reltest.SKIP
    chk = tixtest.Checker("rel_oom")
    d = os.path.join(args.work, "oom")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    plain = tixtest.generate(os.path.join(d, "t.json"), "--steps", 4, "--layers", 30)
    gz = plain + ".gz"
    with open(plain, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    built = os.path.join(d, "built.tix")
    rc, _, err = tixtest.tix(args, "index", plain, "-o", built)
    chk.check(rc == 0, "the index to export from", err[-200:])
    out = os.path.join(d, "out.json")
    cases = [("summary of the plain trace", ["summary", plain, "--no-cache"]),
             ("summary of the gzip trace", ["summary", gz, "--no-cache"]),
             ("index -o", ["index", plain, "-o", os.path.join(d, "o.tix")]),
             ("export", ["export", built, "-o", out])]
    for what, argv in cases:
        top = smallest(args, argv, lambda rc: rc == 0)
        if not chk.check(top is not None, "%s: succeeds without a limit" % what):
            continue
        # below this the loader cannot map libc (127): tix never runs
        floor = smallest(args, argv, lambda rc: rc != 127) or top
        seen = {}
        for k in range(STEPS):
            limit = floor + (top - floor) * k // STEPS
            rc, err = run_as(args, limit, argv)
            seen[rc] = seen.get(rc, 0) + 1
            ok, line = reltest.one_line(err)
            if rc == 3:
                chk.check(ok and ("out of memory" in line or "Cannot allocate memory" in line),
                          "%s in %.1f MB: exit 3, one line saying memory ran out" % (what, limit / 2**20),
                          err.strip()[:300])
            else:
                chk.check(rc == 0, "%s in %.1f MB: exit 0 or 3" % (what, limit / 2**20),
                          "rc %d %s: %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300]))
        chk.check(seen.get(3, 0) > 0, "%s: the sweep ran out of memory at least once (%s)" % (what, seen))
    left = reltest.leftovers(d, keep=("t.json", "t.json.opts", "t.json.gz", "built.tix", "o.tix", "out.json"))
    chk.check(not left, "no temporary or partial file left", repr(left))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

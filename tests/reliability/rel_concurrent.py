#!/usr/bin/env python3
"""Two `tix index` runs on the same trace at once both succeed and leave one
valid index and no temporary file, round after round; so do two `tix
summary` runs that find no index and build the cached one at the same time.

    rel_concurrent.py --tix TIX --work DIR [--rounds N]
"""
import os
import shutil
import subprocess
import sys

import reltest
from reltest import tixtest


def race(args, argvs):
    """Starts every argv at once; returns [(rc, stdout, stderr)]."""
    procs = [subprocess.Popen([args.tix] + a, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for a in argvs]
    res = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        res.append((p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")))
    return res


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--rounds", type=int, default=8)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_concurrent")
    src = tixtest.generate(os.path.join(args.work, "conc-src.json"), "--steps", 6, "--layers", 20)
    d = os.path.join(args.work, "conc")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    trace = os.path.join(d, "t.json")
    shutil.copyfile(src, trace)
    idx = trace + ".tix"
    rc, want, err = tixtest.tix(args, "summary", trace, "--no-cache", "--format", "json")
    chk.check(rc == 0, "reference summary", err)

    bad = []
    for r in range(args.rounds):
        n = 2 + r % 3  # 2, 3 or 4 at once
        res = race(args, [["index", trace]] * n)
        for k, (rc, out, err) in enumerate(res):
            if rc != 0 or err.strip():
                bad.append("round %d run %d: rc %d %s %r" % (r, k, rc, tixtest.describe_crash(rc), err[:200]))
        ok, why = reltest.index_ok(args, idx)
        if not ok:
            bad.append("round %d: the index does not open: %s" % (r, why))
        left = reltest.leftovers(d, ("t.json", "t.json.tix"))
        if left:
            bad.append("round %d: left %s" % (r, left))
    chk.check(not bad, "%d rounds of 2-4 concurrent `tix index` on one trace: all exit 0, one valid index, "
              "no temporary file" % args.rounds, "; ".join(bad[:4]))
    rc, out, err = tixtest.tix(args, "summary", trace, "--format", "json")
    chk.check(rc == 0 and out == want, "the index they left answers like a fresh build", err[:200])

    bad = []
    for r in range(args.rounds):
        if os.path.exists(idx):
            os.unlink(idx)
        res = race(args, [["summary", trace, "--format", "json"]] * 2)
        for k, (rc, out, err) in enumerate(res):
            if rc != 0 or out != want:
                bad.append("round %d run %d: rc %d %s %r" % (r, k, rc, tixtest.describe_crash(rc), err[:200]))
        ok, why = reltest.index_ok(args, idx)
        if not ok:
            bad.append("round %d: the cached index does not open: %s" % (r, why))
        left = reltest.leftovers(d, ("t.json", "t.json.tix"))
        if left:
            bad.append("round %d: left %s" % (r, left))
    chk.check(not bad, "%d rounds of 2 concurrent `tix summary` building the cached index: same answer, "
              "one valid index, no temporary file" % args.rounds, "; ".join(bad[:4]))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

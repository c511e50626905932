#!/usr/bin/env python3
"""A trace rewritten while tix reads it: a profiler that opens the file
again with O_TRUNC while `tix index` maps it.  tix must finish (exit 0, the
whole old content or what it had read) or fail with exit 2 and one line
naming the trace, never die of a signal, and leave no temporary file.

    rel_shrink.py --tix TIX --work DIR [--rounds N] [--seed S]
"""
import os
import random
import shutil
import subprocess
import sys
import time

import reltest
from reltest import tixtest


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--rounds", type=int, default=6 if os.environ.get("TIX_TEST_TRIM") else 12)
    p.add_argument("--seed", type=int, default=int(os.environ.get("TIX_REL_SEED", "0")) or int(time.time()))
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_shrink")
    print("seed %d (rerun with --seed %d)" % (args.seed, args.seed))
    rnd = random.Random(args.seed)
    src = tixtest.generate(os.path.join(args.work, "shrink-src.json"), "--target-mb", 50)
    d = os.path.join(args.work, "shrink")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    trace = os.path.join(d, "t.json")
    shutil.copyfile(src, trace)
    t0 = time.time()
    rc, out, err = tixtest.tix(args, "index", trace, timeout=600)
    full = time.time() - t0
    if not chk.check(rc == 0, "a whole build (%.2f s)" % full, err):
        return chk.done()
    size = os.path.getsize(src)
    bad, shrunk_ok, shrunk_err = [], 0, 0
    for r in range(args.rounds):
        shutil.copyfile(src, trace)
        if os.path.exists(trace + ".tix"):
            os.unlink(trace + ".tix")
        keep = rnd.choice((0, 1000, size // 3))
        delay = rnd.uniform(0, full * 0.8)
        proc = subprocess.Popen([args.tix, "index", trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        with open(trace, "r+b") as f:  # what `open(path, "w")` in a profiler does
            f.truncate(keep)
        _, err = proc.communicate(timeout=600)
        err = err.decode("utf-8", "replace")
        rc = proc.returncode
        one, line = reltest.one_line(err)
        if rc == 0:
            shrunk_ok += 1
        elif rc == 2 and one and trace in line:
            shrunk_err += 1
        else:
            bad.append("round %d (cut to %d bytes after %.3f s): rc %d %s %r" % (
                r, keep, delay, rc, tixtest.describe_crash(rc), err.strip()[:160]))
        left = reltest.leftovers(d, ("t.json", "t.json.tix"))
        if left:
            bad.append("round %d: left %s" % (r, left))
            for f in left:
                os.unlink(os.path.join(d, f))
    chk.check(not bad, "%d traces cut short while being indexed (%d finished, %d refused with one line): "
              "never a signal, no temporary file" % (args.rounds, shrunk_ok, shrunk_err), "; ".join(bad[:3]))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

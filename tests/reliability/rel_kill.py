#!/usr/bin/env python3
"""`tix index` killed (SIGKILL) at random moments while it builds the index
of a ~50 MB trace never leaves an index at the final path that `tix info`
rejects: the final path holds nothing, the previous index, or the whole new
one.  A killed process cannot remove its temporary file (TRACE.tix.tmpXXXXXX,
in the same folder): the test counts them, checks that tix never takes one
for the index (a later run rebuilds or reuses the real one and succeeds) and
that `tix info` on one refuses it with one line (or accepts a whole one),
never crashes.

    rel_kill.py --tix TIX --work DIR [--rounds N] [--seed S]
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import reltest
from reltest import tixtest


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--rounds", type=int, default=16)
    p.add_argument("--seed", type=int, default=int(os.environ.get("TIX_REL_SEED", "0")) or int(time.time()))
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_kill")
    print("seed %d (rerun with --seed %d)" % (args.seed, args.seed))
    rnd = random.Random(args.seed)
    src = tixtest.generate(os.path.join(args.work, "kill-src.json"), "--target-mb", 50)
    d = os.path.join(args.work, "kill")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    trace = os.path.join(d, "t.json")
    os.link(src, trace) if os.stat(src).st_dev == os.stat(d).st_dev else shutil.copyfile(src, trace)
    idx = trace + ".tix"

    t0 = time.time()
    rc, out, err = tixtest.tix(args, "index", trace, timeout=600)
    full = time.time() - t0
    if not chk.check(rc == 0, "a whole build (%.2f s)" % full, err):
        return chk.done()
    good = open(idx, "rb").read()

    bad, killed, finished, tmp_seen = [], 0, 0, set()
    for r in range(args.rounds):
        keep_old = r % 2 == 1  # odd rounds: a valid index is already there
        if keep_old:
            with open(idx, "wb") as f:
                f.write(good)
        elif os.path.exists(idx):
            os.unlink(idx)
        delay = rnd.uniform(0, full * 0.9)
        proc = subprocess.Popen([args.tix, "index", trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.returncode == -signal.SIGKILL:
            killed += 1
        elif proc.returncode == 0:
            finished += 1
        else:
            bad.append("round %d: exit %d before the kill" % (r, proc.returncode))
        if os.path.exists(idx):
            ok, why = reltest.index_ok(args, idx)
            if not ok:
                bad.append("round %d (kill after %.3f s): the index at the final path is refused: %s" % (r, delay, why))
        elif keep_old:
            bad.append("round %d (kill after %.3f s): the previous index is gone" % (r, delay))
        tmp_seen.update(f for f in reltest.leftovers(d, ("t.json", "t.json.tix")))
    chk.check(not bad, "%d kills at random moments (%d killed, %d had finished): the final path holds "
              "nothing, the previous index or a whole new one" % (args.rounds, killed, finished),
              "; ".join(bad[:4]))
    left = reltest.leftovers(d, ("t.json", "t.json.tix"))
    print("note  %d temporary files left by killed runs (a killed process cannot remove its own): %s"
          % (len(left), left[:4]))
    chk.check(all(".tix.tmp" in f for f in left), "what killed runs leave is named TRACE.tix.tmpXXXXXX", str(left))

    # tix never takes a stale temporary file for the index
    if os.path.exists(idx):
        os.unlink(idx)
    rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step")
    chk.check(rc == 0 and "ProfilerStep" in out and not err.strip(),
              "with stale temporary files about, `tix summary` builds the index and answers",
              "rc %d %s" % (rc, err.strip()[:200]))
    ok, why = reltest.index_ok(args, idx)
    chk.check(ok, "...and the index it built opens", why)
    bad = []
    for f in left:
        path = os.path.join(d, f)
        rc, out, err = tixtest.tix(args, "info", path)
        one, line = reltest.one_line(err)
        if not (rc == 0 or (rc == 2 and one and path in line)):
            bad.append("%s (%d bytes): rc %d %s %r" % (f, os.path.getsize(path), rc, tixtest.describe_crash(rc), err[:200]))
    chk.check(not bad, "`tix info` on each stale temporary file: exit 2 with one line naming it (or a whole "
              "index), never a crash", "; ".join(bad[:4]))
    for f in left:
        os.unlink(os.path.join(d, f))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Issue 23, round 8: every file a build writes may stop growing, at any
size, and the build still ends cleanly.  The collectors' rows and flows are
written with pwrite() from a buffer, and placing writes the largest tracks'
rows and ids the same way (index/build/store.c, place.c): their failures
are new paths, beside the fallocate() of the mapped spills and the write of
the index.  A file size limit (RLIMIT_FSIZE, SIGXFSZ ignored: EFBIG, the
full disk's twin without root) is swept from 16 KB to 64 MB in doublings,
on one thread and on two (the split parse, the split finish): each run exits
0 with an index `tix info` accepts, or 3 with one line that names the index
and says "File too large"; never a signal; nothing left in the folder.  The
sweep must stop at least three builds (the collectors' rows, 40 bytes an
event, are the largest file, so the limits that stop a build stop it in the
parse, after one buffer or several), and its largest limit must let the
build through.  A full disk at the index itself is rel_full_disk's.

    rel_fsize.py --tix TIX --work DIR
"""
import os
import resource
import shutil
import signal
import subprocess
import sys

import reltest
from reltest import tixtest


def limited(size):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return pre


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_fsize")
    src = tixtest.generate(os.path.join(args.work, "fsize-src.json"), "--steps", 8, "--layers", 78)
    d = os.path.join(args.work, "fsize")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    out = os.path.join(d, "out.tix")
    modes = (("one thread", {"TIX_THREADS": "1"}),
             ("two threads", {"TIX_SPLIT_MIN": "65536", "TIX_SPLIT_ROWS": "1000"}))
    for label, knobs in modes:
        env = dict(os.environ, **knobs)
        stopped, bad, passed = [], [], []
        limit = 16 << 10
        while limit <= 64 << 20:
            r = subprocess.run([args.tix, "index", src, "-o", out], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, preexec_fn=limited(limit), timeout=300)
            err = r.stderr.decode("utf-8", "replace")
            one, line = reltest.one_line(err)
            left = reltest.leftovers(d, ("out.tix",) if r.returncode == 0 else ())
            if r.returncode == 0:
                ok, detail = reltest.index_ok(args, out)
                if not ok:
                    bad.append("%d KB: exit 0 but %s" % (limit >> 10, detail))
                passed.append(limit)
                os.unlink(out)
            elif r.returncode == 3 and one and out in line and "File too large" in line:
                stopped.append(limit)
            else:
                bad.append("%d KB: rc %d %s stderr %r" % (limit >> 10, r.returncode,
                                                          tixtest.describe_crash(r.returncode), err[:300]))
            if left:
                bad.append("%d KB: left %r" % (limit >> 10, left))
                for f in left:
                    os.unlink(os.path.join(d, f))
            limit *= 2
        chk.check(not bad, "%s: a file size limit from 16 KB to 64 MB: exit 0 with a whole index, or 3 "
                  "with one line naming the index (\"File too large\"); no signal, nothing left" % label,
                  "; ".join(bad[:3]))
        chk.check(len(stopped) >= 3, "%s: the sweep stops at least three builds" % label,
                  "stopped at %r bytes" % stopped)
        chk.check(passed and passed[-1] == 64 << 20, "%s: the largest limit lets the build through" % label,
                  repr(passed))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

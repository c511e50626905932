#!/usr/bin/env python3
"""Issue 19, item 7: disk is bounded like memory.  Building an index takes
temporary disk (its spills, and the index); a small .gz that inflates to a
million events would need far more than its size.  The build stops, with
one line that says so and exit 3, once it would pass its bound: --max-temp
SIZE, or by default the free space of the index's file system less a margin
kept for others (checked on a tmpfs, root only: never "No space left on
device", the disk never filled).  Nothing is left behind; a bound the build
stays within changes nothing in the index.
Before: no bound; a build filled the disk to ENOSPC (the whole of it, for
every user of the host).

    rel_temp.py --tix TIX --work DIR
"""
import filecmp
import gzip
import os
import shutil
import subprocess

import reltest
from reltest import tixtest


def bomb(path, n):
    """n tiny kernels: a few MB of gzip, a large index build."""
    if os.path.exists(path) and os.path.exists(path + ".n") and open(path + ".n").read() == str(n):
        return path
    with gzip.open(path, "wt", compresslevel=6) as f:
        f.write('{"traceEvents": [\n')
        for i in range(n):
            f.write('{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":1},\n' % (i % 7, 2 * i))
        f.write('{"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":%d,"dur":1}\n]}\n' % (2 * n))
    with open(path + ".n", "w") as f:
        f.write(str(n))
    return path


def main():
    args, chk, d = reltest.start(__doc__, "rel_temp", "temp")
    n = 300000 if os.environ.get("TIX_TEST_TRIM") else 1000000
    gz = bomb(os.path.join(args.work, "bomb.json.gz"), n)
    out = os.path.join(d, "x.tix")
    rc, o, e = reltest.expect(args, chk, "tix index BOMB.json.gz (%.1f MB, %d events) -o X --max-temp 20M" %
                              (os.path.getsize(gz) / 1e6, n), ("index", gz, "-o", out, "--max-temp", "20M"), 3,
                              ("past --max-temp (20 MB)", "x.tix"))
    chk.check(not os.listdir(d), "nothing left where the index was to go", repr(os.listdir(d)))
    # beside the trace, then the cache: both bounded
    t = os.path.join(d, "bomb.json.gz")
    shutil.copyfile(gz, t)
    cache = os.path.join(os.environ["XDG_CACHE_HOME"], "tix")
    before = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
    rc, o, e = reltest.expect(args, chk, "tix summary BOMB --max-temp 20M", ("summary", t, "--max-temp", "20M"), 3,
                              ("past --max-temp", "and in the cache"))
    after = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
    chk.check(os.listdir(d) == ["bomb.json.gz"] and after == before,
              "nothing left beside the trace nor in the cache", "%r %r" % (os.listdir(d), after))
    for bad in ("0", "5X", "-1", "1.5G", ""):
        reltest.expect(args, chk, "--max-temp %r" % bad, ("index", t, "-o", out, "--max-temp", bad), 1,
                       ("--max-temp takes a size",))
    # a bound it stays within: the same index
    small = tixtest.generate(os.path.join(args.work, "temp-small.json"), "--steps", 3, "--layers", 6)
    a, b = os.path.join(d, "a.tix"), os.path.join(d, "b.tix")
    rc1, _, e1 = tixtest.tix(args, "index", small, "-o", a)
    rc2, _, e2 = tixtest.tix(args, "index", small, "-o", b, "--max-temp", "1G")
    chk.check(rc1 == 0 and rc2 == 0 and filecmp.cmp(a, b, shallow=False),
              "--max-temp 1G on a small trace: the index byte for byte as without it", e1 + e2)
    # the default bound: a tmpfs that the build would fill
    fs = os.path.join(args.work, "temp-tmpfs")
    os.makedirs(fs, exist_ok=True)
    subprocess.run(["umount", fs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", fs], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        chk.skip("the default bound on a full tmpfs", "cannot mount a tmpfs: %s" % r.stderr.decode().strip())
        return chk.done()
    try:
        out = os.path.join(fs, "x.tix")
        rc, o, e = reltest.expect(args, chk, "no --max-temp, a 24 MB tmpfs the build would fill",
                                  ("index", gz, "-o", out), 3, ("stopped before the disk fills", "less"),
                                  ("No space left",))
        chk.check(not os.listdir(fs), "nothing left on the tmpfs", repr(os.listdir(fs)))
    finally:
        subprocess.run(["umount", fs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

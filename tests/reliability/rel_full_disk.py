#!/usr/bin/env python3
"""A full disk: `tix index` into a small tmpfs gives exit 2, one line on
stderr naming the index and saying "No space left on device", and leaves
no temporary file there; the same for a trace whose folder fills up while
its cached index is written.  Needs to mount a tmpfs (root); otherwise
exits 77 (skipped) with the reason.

    rel_full_disk.py --tix TIX --work DIR
"""
import os
import shutil
import subprocess
import sys

import reltest
from reltest import tixtest


def mount(d, size):
    os.makedirs(d, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s" % size, "tmpfs", d],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode == 0, r.stderr.decode().strip()


def umount(d):
    subprocess.run(["umount", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def expect_enospc(args, chk, label, argv, d, keep, target):
    rc, out, err = tixtest.tix(args, *argv, timeout=600)
    one, line = reltest.one_line(err)
    chk.check(rc == 2 and one and target in line and "No space left on device" in line,
              "%s: exit 2, one line naming %s with \"No space left on device\"" % (label, os.path.basename(target)),
              "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:300]))
    left = reltest.leftovers(d, keep)
    chk.check(not left, "%s: no temporary file left" % label, str(left))
    for f in left:  # so that the next case starts clean
        os.unlink(os.path.join(d, f))


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_full_disk")
    if not shutil.which("mount"):
        print("SKIP: no mount command")
        return reltest.SKIP
    src = tixtest.generate(os.path.join(args.work, "full-src.json"), "--steps", 8, "--layers", 78)
    fs = os.path.join(args.work, "tmpfs")
    umount(fs)
    ok, why = mount(fs, "2m")
    if not ok:
        print("SKIP: cannot mount a tmpfs (needs root / CAP_SYS_ADMIN): %s" % why)
        return reltest.SKIP
    try:
        # 1. -o into a 2 MB file system; the index is ~3 MB
        out = os.path.join(fs, "out.tix")
        expect_enospc(args, chk, "index larger than the free space", ("index", src, "-o", out), fs, (), out)
        # 2. the disk is full before tix starts
        with open(os.path.join(fs, "filler"), "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        expect_enospc(args, chk, "a disk with no free byte", ("index", src, "-o", out), fs, ("filler",), out)
        os.unlink(os.path.join(fs, "filler"))
    finally:
        umount(fs)
    # 3. the trace's own folder fills up while its cached index is written
    size = os.path.getsize(src)
    ok, why = mount(fs, str(size + (1 << 20)))
    if not ok:
        chk.skip("cached index on a full disk", why)
        return chk.done()
    try:
        trace = os.path.join(fs, "t.json")
        shutil.copyfile(src, trace)
        expect_enospc(args, chk, "cached index next to the trace", ("summary", trace), fs, ("t.json",), trace + ".tix")
        # a successful run still possible with --no-cache? (no index written there)
        rc, out, err = tixtest.tix(args, "summary", trace, "--no-cache")
        chk.check(rc == 0, "--no-cache still answers when the trace's disk is full", err[:200])
    finally:
        umount(fs)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

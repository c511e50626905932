#!/usr/bin/env python3
"""A full disk: `tix index` into a small tmpfs gives exit 3 (the
environment, docs/CLI.md), one line on stderr naming the index, and leaves
no temporary file there: the build stops at its bound (the free space less a
margin: "stopped before the disk fills"), or with a --max-temp past the free
space meets the full disk ("No space left on device").  A trace
whose folder fills up while its index is written beside it falls back on
the cache (issue 9, item 6); when the cache is full too, exit 3 with one
line naming both.  Needs to mount a tmpfs (root); otherwise exits 77
(skipped) with the reason.

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


def expect_enospc(args, chk, label, argv, d, keep, target, env=None):
    """By default the build stops at its bound, the free space less a margin
    (issue 19, item 7); with a --max-temp past the free space it meets the
    full disk itself: ENOSPC.  Either way exit 3, one line, nothing left."""
    for bound, say in (([], "stopped before the disk fills"), (["--max-temp", "1T"], "No space left on device")):
        rc, out, err = tixtest.run([args.tix] + list(argv) + bound, timeout=600, env=env)
        one, line = reltest.one_line(err)
        chk.check(rc == 3 and one and target in line and say in line,
                  "%s%s: exit 3, one line naming %s with \"%s\"" % (label, " ".join([","] + bound) if bound else "",
                                                                 os.path.basename(target), say),
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
        cache = os.path.join(os.environ["XDG_CACHE_HOME"], "tix")
        shutil.rmtree(cache, ignore_errors=True)
        rc, out, err = tixtest.tix(args, "summary", trace)
        cached = os.listdir(cache) if os.path.isdir(cache) else []
        chk.check(rc == 0 and "Time%" in out and len([f for f in cached if f.endswith("-t.json.tix")]) == 1,
                  "index beside the trace on a full disk: falls back on the cache, exit 0",
                  "rc %d %s cache %r stderr %r" % (rc, tixtest.describe_crash(rc), cached, err[:300]))
        left = reltest.leftovers(fs, ("t.json",))
        chk.check(not left, "the fallback leaves no temporary file beside the trace", str(left))
        rc, out, err = tixtest.tix(args, "summary", trace)
        chk.check(rc == 0 and not reltest.no_hints(err).strip(), "the next run reuses the index in the cache",
                  err[:300])
        # the cache on the same full disk: no place is left
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(fs, "cache"))
        os.makedirs(os.path.join(fs, "cache", "tix"), exist_ok=True)
        with open(os.path.join(fs, "filler"), "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        expect_enospc(args, chk, "a full trace folder and a full cache", ("summary", trace), fs,
                      ("t.json", "cache", "filler"), trace + ".tix", env=env)
        rc, out, err = tixtest.run([args.tix, "summary", trace], env=env)
        chk.check("and in the cache" in err and "/cache/tix/" in err,
                  "the message names the cache as the second place tried", err[:300])
        chk.check(not os.listdir(os.path.join(fs, "cache", "tix")), "no temporary file left in the cache",
                  str(os.listdir(os.path.join(fs, "cache", "tix"))))
        os.unlink(os.path.join(fs, "filler"))
        # a successful run still possible with --no-cache? (no index written there)
        rc, out, err = tixtest.tix(args, "summary", trace, "--no-cache")
        chk.check(rc == 0, "--no-cache still answers when the trace's disk is full", err[:200])
    finally:
        umount(fs)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

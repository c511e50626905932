#!/usr/bin/env python3
"""Issue 9, item 8: staleness by device, inode and ctime, and one index for
a symlinked trace.  The changed traces below keep size, mtime and their
first and last 64 KiB (what was checked before), and differ only in the
middle: one kernel renamed, same length.
  moved over   another file renamed over the trace, its mtime put back
               (another inode; before: the old index was reused)
  in place     the middle rewritten in the same file, mtime put back
               (a new ctime)
  symlink      `tix summary link.json` uses the index of its target
               (before: a second index, link.json.tix)

    rel_stale.py --tix TIX --work DIR
"""
import json
import os
import shutil

import reltest
from reltest import tixtest

KERNEL = '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":3}'
N = 6000  # ~420 KB: a middle that neither 64 KiB end covers


def text(middle_name):
    evs = [KERNEL % ("kA" if i != N // 2 else middle_name, 10 * i) for i in range(N)]
    return '{"traceEvents": [%s]}' % ",".join(evs)


def names(args, path):
    rc, out, err = tixtest.tix(args, "summary", path, "--format", "json")
    if rc != 0:
        return "rc %d %s" % (rc, err.strip()[:200])
    return sorted(g["name"] for g in json.loads(out)["kernels"])


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_stale")
    d = os.path.join(args.work, "stale")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    trace = os.path.join(d, "t.json")
    with open(trace, "w") as f:
        f.write(text("kB"))
    st = os.stat(trace)
    chk.eq(names(args, trace), ["kA", "kB"], "first run indexes kA and kB")

    # another file moved over it, same size, mtime put back
    other = os.path.join(d, "other.json")
    with open(other, "w") as f:
        f.write(text("kC"))
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.rename(other, trace)
    st2 = os.stat(trace)
    chk.check(st2.st_size == st.st_size and st2.st_mtime_ns == st.st_mtime_ns and st2.st_ino != st.st_ino,
              "setup: same size and mtime, another inode")
    chk.eq(names(args, trace), ["kA", "kC"], "a file moved over the trace (mtime put back) is re-indexed")

    # the same inode rewritten in the middle, mtime put back
    with open(trace, "r+") as f:
        f.write(text("kD"))
    os.utime(trace, ns=(st2.st_atime_ns, st2.st_mtime_ns))
    st3 = os.stat(trace)
    chk.check(st3.st_ino == st2.st_ino and st3.st_mtime_ns == st2.st_mtime_ns, "setup: same inode and mtime")
    chk.eq(names(args, trace), ["kA", "kD"], "the middle rewritten in place (mtime put back) is re-indexed")

    # unchanged: reused, not rebuilt
    before = os.stat(trace + ".tix").st_mtime_ns
    chk.eq(names(args, trace), ["kA", "kD"], "unchanged: the same answer")
    chk.check(os.stat(trace + ".tix").st_mtime_ns == before, "unchanged: the index is reused")

    # a symlink shares its target's index
    link = os.path.join(d, "link.json")
    os.symlink("t.json", link)
    chk.eq(names(args, link), ["kA", "kD"], "through a symlink: the same answer")
    chk.check(not os.path.exists(link + ".tix") and os.stat(trace + ".tix").st_mtime_ns == before,
              "through a symlink: the target's index, no second one",
              str(sorted(os.listdir(d))))
    # a symlink from another folder
    far = os.path.join(args.work, "stale-far")
    shutil.rmtree(far, ignore_errors=True)
    os.makedirs(far)
    os.symlink(trace, os.path.join(far, "t.json"))
    chk.eq(names(args, os.path.join(far, "t.json")), ["kA", "kD"], "through a symlink in another folder")
    chk.check(os.listdir(far) == ["t.json"] and os.stat(trace + ".tix").st_mtime_ns == before,
              "through a symlink in another folder: no second index", str(os.listdir(far)))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

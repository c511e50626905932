#!/usr/bin/env python3
"""Issue 9, item 6: when the index cannot live beside the trace, it goes to
the cache ($XDG_CACHE_HOME/tix) instead of failing: a directory at
TRACE.tix, a name so long that TRACE.tix (or its temporary name) does not
fit in 255 bytes.  The next run finds it there and reuses it.  When no
place is left, exit 3 with one line.  (A full trace folder: rel_full_disk,
which needs root to mount a small file system.)

    rel_fallback.py --tix TIX --work DIR
"""
import os
import shutil

import reltest
from reltest import tixtest

KERNEL = '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":3}'


def cached(cache):
    return sorted(os.listdir(cache)) if os.path.isdir(cache) else []


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_fallback")
    d = os.path.join(args.work, "fallback")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cache = os.path.join(os.environ["XDG_CACHE_HOME"], "tix")

    def trace(name):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write('{"traceEvents": [%s]}' % KERNEL)
        return path

    def case(label, path, expect_beside):
        shutil.rmtree(cache, ignore_errors=True)
        rc, out, err = tixtest.tix(args, "summary", path)
        names = cached(cache)
        chk.check(rc == 0 and "k1" in out and len(names) == 1 and all(len(n) <= 255 for n in names),
                  "%s: exit 0, its index in the cache" % label,
                  "rc %d %s cache %r stderr %r" % (rc, tixtest.describe_crash(rc), names, err[:300]))
        before = {n: os.stat(os.path.join(cache, n)).st_mtime_ns for n in names}
        rc, out, err = tixtest.tix(args, "summary", path)
        after = {n: os.stat(os.path.join(cache, n)).st_mtime_ns for n in cached(cache)}
        chk.check(rc == 0 and before == after, "%s: the next run reuses the cached index" % label,
                  "rc %d before %r after %r" % (rc, before, after))
        left = [f for f in os.listdir(d) if ".tmp" in f]
        chk.check(not left and os.path.isdir(path + ".tix") == expect_beside,
                  "%s: nothing left beside the trace" % label, str(left))

    # a directory where the index would go
    t = trace("dir-in-the-way.json")
    os.makedirs(t + ".tix")
    case("a directory at TRACE.tix", t, True)

    # names: from 242 bytes, TRACE.tix.tmpXXXXXX (the builder's temporary
    # name) passes 255; from 252, TRACE.tix itself
    for n in (242, 251, 252):
        t = trace(("n%d-" % n).ljust(n - 5, "x") + ".json")
        case("a name of %d bytes" % n, t, False)
    shutil.rmtree(cache, ignore_errors=True)
    t = trace("n241-".ljust(236, "x") + ".json")
    rc, out, err = tixtest.tix(args, "summary", t)
    chk.check(rc == 0 and os.path.isfile(t + ".tix") and not cached(cache),
              "a name of 241 bytes: the index beside the trace", err[:300])

    # a name that fits: beside the trace, as before
    shutil.rmtree(cache, ignore_errors=True)
    t = trace("short.json")
    rc, out, err = tixtest.tix(args, "summary", t)
    chk.check(rc == 0 and os.path.isfile(t + ".tix") and not cached(cache),
              "a name that fits: the index beside the trace, not in the cache", err[:300])

    # no place left: the name too long and the cache a file, not a folder
    t = trace("n252-".ljust(247, "y") + ".json")
    blocked = os.path.join(d, "not-a-folder")
    with open(blocked, "w") as f:
        f.write("x")
    env = dict(os.environ, XDG_CACHE_HOME=blocked)
    rc, out, err = tixtest.run([args.tix, "summary", t], env=env)
    one, line = reltest.one_line(err)
    chk.check(rc == 3 and one and "no writable place" in line, "no place left: exit 3, one line",
              "rc %d stderr %r" % (rc, err[:300]))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

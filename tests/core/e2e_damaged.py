#!/usr/bin/env python3
"""Damaged .tix files: `tix info X.tix` exits 2 with one clear line naming
the file, never crashes.  The damaged copies come from the white-box tool
tix_damage (truncations, flipped bytes in the header and each section, a
future min_reader_version, offsets and sizes outside the file, ...); copies
whose checksums were fixed up may open, but then every command must work or
fail cleanly.

    e2e_damaged.py --tix TIX --damage TIX_DAMAGE --work DIR
"""

import os
import sys

import tixtest


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--damage", required=True, help="the tix_damage tool")
    p.add_argument("--rounds", default="2000", help="random mutations tix_damage runs in process")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_damaged")
    trace = tixtest.generate(os.path.join(args.work, "damaged-src.json"), "--steps", 2, "--layers", 2,
                             "--python-frames")
    good = os.path.join(args.work, "good.tix")
    rc, out, err = tixtest.tix(args, "index", trace, "-o", good)
    if not chk.check(rc == 0, "index the source trace", err):
        return chk.done()
    rc, out, err = tixtest.tix(args, "info", good)
    chk.check(rc == 0 and "events:" in out and not err.strip(), "tix info on the good index", err)
    d = os.path.join(args.work, "damaged")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    rc, out, err = tixtest.run([args.damage, good, d, args.rounds], timeout=600)
    for line in out.split("\n"):
        if line.startswith("FAIL"):
            print(line)
    chk.check(rc == 0, "tix_damage: the library refuses every damaged file and survives %s random mutations"
              % args.rounds, "rc %d %s %s" % (rc, tixtest.describe_crash(rc), (err or out)[-600:]))
    with open(os.path.join(d, "cases.txt")) as f:
        cases = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    chk.check(len(cases) > 50, "%d damaged files to try" % len(cases))
    bad_err, bad_any = [], []
    for name, expect, what in cases:
        path = os.path.join(d, name)
        rc, out, err = tixtest.tix(args, "info", path)
        lines = [l for l in err.split("\n") if l.strip()]
        if expect == "error":
            if not (rc == 2 and len(lines) == 1 and path in lines[0] and
                    any(w in lines[0] for w in ("damaged", "not a tix index", "newer tix", "byte order"))):
                bad_err.append("%s (%s): rc %d %s %r" % (name, what, rc, tixtest.describe_crash(rc), err[:200]))
        else:
            runs = [("info", path), ("summary", path, "--by", "kernel"), ("summary", path, "--by", "step"),
                    ("summary", path, "--by", "op"), ("show", path, "--kernel", "", "--limit", "0"),
                    ("export", path, "-o", os.path.join(d, "export.json"))]
            for argv in runs:
                rc, out, err = tixtest.tix(args, *argv)
                lines = [l for l in err.split("\n") if l.strip()]
                if rc not in (0, 2) or len(lines) > 1 or (rc == 2 and path not in err):
                    bad_any.append("%s (%s): tix %s: rc %d %s %r" % (name, what, argv[0], rc,
                                                                     tixtest.describe_crash(rc), err[:200]))
    nerr = sum(1 for c in cases if c[1] == "error")
    chk.check(not bad_err, "tix info on %d damaged files: exit 2, one line naming the file" % nerr,
              "; ".join(bad_err[:5]) + (" (+%d more)" % (len(bad_err) - 5) if len(bad_err) > 5 else ""))
    chk.check(not bad_any, "%d re-checksummed files: every command exits 0 or 2, at most one line, no crash"
              % (len(cases) - nerr), "; ".join(bad_any[:5]))
    # the expected messages, by kind of damage
    expect_msgs = [("trunc-0.tix", "not a tix index"), ("trunc-63.tix", "not a tix index"),
                   ("future-version.tix", "needs a newer tix"), ("bad-magic.tix", "bad magic"),
                   ("flip-header.tix", "header checksum"), ("flip-sec5.tix", "checksum of section 5"),
                   ("offset-outside-sec5.tix", "damaged index"), ("other-endian.tix", "byte order")]
    for name, want in expect_msgs:
        path = os.path.join(d, name)
        if not os.path.exists(path):
            chk.skip(name, "not generated")
            continue
        rc, out, err = tixtest.tix(args, "info", path)
        chk.check(rc == 2 and want in err, "%s: says \"%s\"" % (name, want), err.strip())
    rc, out, err = tixtest.tix(args, "info", os.path.join(d, "no-such.tix"))
    chk.check(rc == 2 and len(err.strip().split("\n")) == 1 and "no-such.tix" in err, "tix info on a missing .tix",
              err.strip())
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

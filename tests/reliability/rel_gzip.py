#!/usr/bin/env python3
"""Issue 19, item 5: gzip as careful as plain JSON.

- A second trace after the first, in the same member or in a second
  member, is warned about as for plain JSON ("ignored trailing bytes").
- A .gz cut short says where it was cut (compressed bytes, and the bytes
  of JSON inflated) and what was kept: the whole events before byte N of
  the inflated JSON (N where the last whole event ends, as Python's own
  zlib and JSON reader find it), never "before byte 0"; cut before any
  JSON, or before traceEvents, it says so (exit 2), never "empty file";
  cut in its trailer only, every event is kept.
On one thread and two (TIX_SPLIT_MIN forces the split; a cut stream's
trailer is garbage, which made the second thread start on small files).
Before: no warning for a second trace; "empty file: no JSON in it" for a
stream cut after its header; "indexed the 986 whole events before byte 0".

    rel_gzip.py --tix TIX --work DIR
"""
import gzip
import json
import os
import random
import re
import zlib

import reltest
from reltest import tixtest


def whole_events(partial):
    """(count, end offset of the last whole event) of a JSON text cut short."""
    dec = json.JSONDecoder()
    i = partial.index("[", partial.index('"traceEvents"')) + 1
    count, last = 0, 0
    while True:
        while i < len(partial) and partial[i] in " \n\r\t,":
            i += 1
        try:
            _, end = dec.raw_decode(partial, i)
        except ValueError:
            return count, last
        count, last, i = count + 1, end, end


def inflate_prefix(data):
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return d.decompress(data).decode("utf-8", "replace")


def main():
    args, chk, d = reltest.start(__doc__, "rel_gzip", "gzip")
    src = tixtest.generate(os.path.join(args.work, "gzip-src.json"), "--steps", 4, "--layers", 20)
    text = open(src, encoding="utf-8").read()
    full = gzip.compress(text.encode(), 6)
    envs = (("one thread", dict(os.environ, TIX_THREADS="1")), ("two threads", dict(os.environ, TIX_SPLIT_MIN="4096")))

    def tix(path, env):
        return tixtest.run([args.tix, "summary", path, "--no-cache", "--by", "step", "--format", "csv"], env=env)

    # a second trace after the first
    plain = os.path.join(d, "twice.json")
    with open(plain, "w") as f:
        f.write(text + "\n" + text)
    one = os.path.join(d, "one-member.json.gz")
    with open(one, "wb") as f:
        f.write(gzip.compress((text + "\n" + text).encode()))
    two = os.path.join(d, "two-members.json.gz")
    with open(two, "wb") as f:
        f.write(full + full)
    ws = os.path.join(d, "blank-member.json.gz")
    with open(ws, "wb") as f:
        f.write(full + gzip.compress(b"\n\n  \n"))
    rcp, outp, errp = tix(plain, None)
    chk.check(rcp == 0 and "ignored trailing bytes" in errp, "plain JSON, two traces: the warning", errp[:200])
    for env_label, env in envs:
        for label, path in (("two traces in one member", one), ("a second member", two)):
            rc, out, err = tix(path, env)
            chk.check(rc == 0 and out == outp and "ignored trailing bytes after the trace's JSON" in err,
                      "gzip, %s, %s: the first indexed, the rest warned about as for plain JSON" % (label, env_label),
                      "rc %d %r" % (rc, err[:300]))
        rc, out, err = tix(ws, env)
        chk.check(rc == 0 and "trailing" not in err, "gzip, a member of blanks after it, %s: no warning" % env_label,
                  err[:200])

    # cut short
    for frac in (0.3, 0.6, 0.9):
        cut = full[:int(len(full) * frac)]
        path = os.path.join(d, "cut-%d.json.gz" % int(frac * 100))
        with open(path, "wb") as f:
            f.write(cut)
        partial = inflate_prefix(cut)
        count, last = whole_events(partial)
        for env_label, env in envs:
            rc, out, err = tix(path, env)
            warn = [l for l in err.split("\n") if "warning" in l]
            m = re.search(r"gzip stream cut short after (\d+) compressed bytes \((\d+) bytes of JSON inflated\): "
                          r"trace truncated .*: indexed the (\d+) whole events before byte (\d+) \(of the inflated JSON\)",
                          warn[0] if warn else "")
            ok = rc == 0 and len(warn) == 1 and m and int(m.group(1)) == len(cut) and \
                int(m.group(2)) == len(partial.encode()) and int(m.group(4)) == last and int(m.group(3)) == count
            chk.check(ok, "cut at %d%% of the compressed bytes, %s: one warning: cut after %d compressed bytes "
                      "(%d inflated), %d whole events before byte %d" % (frac * 100, env_label, len(cut),
                                                                         len(partial.encode()), count, last),
                      "rc %d %r" % (rc, err[:400]))
    # cut before any JSON, before traceEvents
    head = os.path.join(d, "header-only.json.gz")
    with open(head, "wb") as f:
        f.write(full[:12])
    rnd = random.Random(19)  # letters that do not compress away: the cut falls inside the key
    lead = '{"otherData": "%s", "traceEvents": [%s]}' % ("".join(rnd.choice("abcdefghijklmnop") for _ in range(300000)),
                                                       text[text.index("[") + 1:text.rindex("]")])
    lz = gzip.compress(lead.encode(), 9)
    before = os.path.join(d, "before-events.json.gz")
    with open(before, "wb") as f:
        f.write(lz[:len(lz) // 20])
    for env_label, env in envs:
        rc, out, err = tix(head, env)
        one_l, line = reltest.one_line(err)
        chk.check(rc == 2 and one_l and "cut short after 12 compressed bytes" in line and "before any JSON" in line and
                  "empty file" not in line, "cut after the header, %s: exit 2, where it was cut" % env_label, err[:300])
        rc, out, err = tix(before, env)
        one_l, line = reltest.one_line(err)
        chk.check(rc == 2 and one_l and "cut short after %d compressed bytes" % (len(lz) // 20) in line and
                  "before any \"traceEvents\"" in line and "byte 0" not in line,
                  "cut inside a key before traceEvents, %s: exit 2, where it was cut" % env_label, err[:300])
    # the trailer only
    tail = os.path.join(d, "no-trailer.json.gz")
    with open(tail, "wb") as f:
        f.write(full[:-8])
    rcf, outf, errf = tix(src, None)
    for env_label, env in envs:
        rc, out, err = tix(tail, env)
        chk.check(rc == 0 and out == outf and "checksum missing, every event kept" in err and "truncated" not in err,
                  "cut in the trailer, %s: every event kept, the warning says so" % env_label, err[:300])
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

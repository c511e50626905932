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
- Values larger than the gzip window (256 KB, parse/reader.h GZIP_WINDOW):
  a 700 KB value before traceEvents, args of 300 KB and 1.2 MB, are read
  whole: the .gz gives the plain file's summary and export.
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

    # values larger than the gzip window, before traceEvents and inside events
    doc = json.loads(text)
    evs = doc["traceEvents"]
    launches = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "cuda_runtime"]

    def launches_inside(e):  # an op around a launch is in every export of the whole trace
        return any(r["pid"] == e["pid"] and r["tid"] == e["tid"] and e["ts"] <= r["ts"] and
                   r["ts"] + r.get("dur", 0) <= e["ts"] + e.get("dur", 0) for r in launches)
    cpu = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "cpu_op" and launches_inside(e)]
    chk.check(len(cpu) >= 3, "the generator's trace has cpu ops around launches to grow", len(cpu))
    cpu[len(cpu) // 3].setdefault("args", {})["note"] = "n" * (300 << 10)
    cpu[2 * len(cpu) // 3].setdefault("args", {})["note"] = "m" * (1200 << 10)
    big_text = json.dumps(dict([("otherData", {"blob": "o" * (700 << 10)})] + list(doc.items())))
    big_plain = os.path.join(d, "big-values.json")
    with open(big_plain, "w") as f:
        f.write(big_text)
    big_gz = os.path.join(d, "big-values.json.gz")
    with open(big_gz, "wb") as f:
        f.write(gzip.compress(big_text.encode(), 6))

    def views(path, env):
        outs = []
        for by in ("step", "op", "kernel"):
            outs.append(tix(path, env) if by == "step" else
                        tixtest.run([args.tix, "summary", path, "--no-cache", "--by", by, "--format", "csv"], env=env))
        exp = path + ".export.json"
        outs.append(tixtest.run([args.tix, "export", path, "--no-cache", "-o", exp], env=env))
        with open(exp, encoding="utf-8") as f:
            outs.append(f.read())
        return outs

    ref = views(big_plain, None)
    chk.check(all(o[0] == 0 for o in ref[:4]) and ("m" * (1200 << 10)) in ref[4],
              "plain, values larger than the gzip window: indexed, the 1.2 MB arg exported whole",
              " ".join(o[2][:200] for o in ref[:4]))
    for env_label, env in envs:
        got = views(big_gz, env)
        differ = [name for name, g, r in zip(("steps", "ops", "kernels"), got, ref) if g[0] != 0 or g[1] != r[1]]
        differ += ["export"] if got[3][0] != 0 or got[4] != ref[4] else []  # (its stdout names the file)
        chk.check(not differ, "gzip, values larger than its window, %s: the plain file's summaries and export" %
                  env_label, "differ: %s; %s" % (", ".join(differ), " ".join(g[2][:200] for g in got[:4])))

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

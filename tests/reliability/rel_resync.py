#!/usr/bin/env python3
"""Issue 19, item 4: one bad byte loses one event, not the rest of the trace.

A malformed event in the middle of traceEvents (a stray quote, a stray
brace, a number, junk between events) is skipped: the parse starts again at
the next event and keeps everything after it, and warns with the byte offset
and how many events were skipped, a warning that lasts (stored in the index,
repeated on every open), never "trace truncated".  --strict makes it an
error (exit 2, one line with the byte offset).  Checked against the same
trace with the bad event removed by hand (every CSV of summary equal), on
one thread and two, in small parse windows, and gzipped; a bad last event
keeps the top-level keys after traceEvents (baseTimeNanoseconds); 2,000 bad
events finish (no rescan to the end of the file per event).
Before: 528,063 of 658,323 events kept, exit 0, "trace truncated".

    rel_resync.py --tix TIX --work DIR
"""
import gzip
import json
import os
import re

import reltest
from reltest import tixtest


def event_spans(text):
    """(start, end) of every event of traceEvents, by Python's own JSON reader."""
    dec = json.JSONDecoder()
    i = text.index('"traceEvents"')
    i = text.index("[", i) + 1
    spans = []
    while True:
        while text[i] in " \n\r\t,":
            i += 1
        if text[i] == "]":
            return spans, i
        _, end = dec.raw_decode(text, i)
        spans.append((i, end))
        i = end


def without(text, spans, drop):
    """text with the events numbered in drop removed (and a comma each)."""
    out, at = [], 0
    for k in sorted(drop):
        s, e = spans[k]
        nxt = spans[k + 1][0] if k + 1 < len(spans) else None
        out.append(text[at:s])
        at = nxt if nxt is not None else e
        if nxt is None:  # the last: drop the comma before it instead
            out[-1] = out[-1].rstrip().rstrip(",") + "\n"
    out.append(text[at:])
    return "".join(out)


def corrupt(text, spans, k, how):
    s, e = spans[k]
    ev = text[s:e]
    if how == "quote":  # a stray quote inside the event
        j = ev.index('"name"')
        ev = ev[:j] + '"' + ev[j:]
    elif how == "brace":
        j = ev.index('"ph"')
        ev = ev[:j] + "{" + ev[j:]
    elif how == "number":
        ev = "7"
    elif how == "colon":  # a key without its value
        ev = ev.replace('"ph":', '"ph"', 1)
    return text[:s] + ev + text[e:], s


def faces(args, path, extra=(), env=None):
    outs = []
    for by in ("kernel", "step", "op"):
        rc, out, err = tixtest.run([args.tix, "summary", path, "--no-cache", "--by", by, "--format", "csv"] +
                                   list(extra), env=env)
        outs.append((rc, out))
    return outs


def main():
    args, chk, d = reltest.start(__doc__, "rel_resync", "resync")
    # TIX_TEST_TRIM (the ASan suite): 2 MB, some 100 runs of tix over it
    mb = 2 if os.environ.get("TIX_TEST_TRIM") else 20
    src = tixtest.generate(os.path.join(args.work, "resync-src.json"), "--target-mb", mb)
    text = open(src, encoding="utf-8").read()
    spans, close = event_spans(text)
    n = len(spans)
    mid = n // 2
    one = dict(os.environ, TIX_THREADS="1")
    two = dict(os.environ, TIX_SPLIT_MIN="100000")  # two threads on this small trace
    small = dict(os.environ, TIX_PARSE_WINDOW="4096")
    cases = [("a stray quote in the middle", [(mid, "quote")]),
             ("a stray brace in the middle", [(mid + 3, "brace")]),
             ("a number for an event", [(mid - 5, "number")]),
             ("a key without its value", [(mid + 7, "colon")]),
             ("a stray quote in the first event", [(0, "quote")]),
             ("a stray quote in the last event", [(n - 1, "quote")]),
             ("three bad events", [(n // 4, "quote"), (mid, "brace"), (3 * n // 4, "quote")])]
    for label, bad in cases:
        t = text
        offsets = []
        for k, how in sorted(bad, reverse=True):  # from the end: earlier offsets stay true
            t, at = corrupt(t, spans, k, how)
            offsets.append(at)
        first = min(offsets)
        path = os.path.join(d, "bad.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(t)
        ref = os.path.join(d, "ref.json")
        with open(ref, "w", encoding="utf-8") as f:
            f.write(without(text, spans, [k for k, _ in bad]))
        want = faces(args, ref)
        rc, out, err = tixtest.run([args.tix, "summary", path, "--no-cache"])
        warn = [l for l in err.split("\n") if "malformed" in l]
        nb = len(bad)
        says = ("%d malformed event%s skipped" % (nb, "s" if nb > 1 else "")) + (" in %d places" % nb if nb > 1 else "")
        chk.check(rc == 0 and len(warn) == 1 and says in warn[0] and ("the first at byte %d:" % first) in warn[0] and
                  "truncated" not in err,
                  "%s: exit 0, one warning: %s, the first at byte %d" % (label, says, first),
                  "rc %d %r" % (rc, err[:400]))
        # under TIX_TEST_TRIM (the ASan suite) one thread is checked with 4 KB
        # windows only: the trace is below the split, so those are one thread too
        envs = (("two threads", two), ("4 KB windows", small))
        if not os.environ.get("TIX_TEST_TRIM"):
            envs = (("one thread", one),) + envs
        for env_label, env in envs:
            got = faces(args, path, env=env)
            chk.check(got == want and all(r == 0 for r, _ in got),
                      "%s, %s: every summary (kernel, step, op) equals the trace without that event" % (label, env_label),
                      "rc %r" % [r for r, _ in got])
        rc, out, err = tixtest.run([args.tix, "summary", path, "--no-cache", "--strict"])
        one_l, line = reltest.one_line(err)
        chk.check(rc == 2 and one_l and ("byte %d" % first) in line and "warning" not in line,
                  "%s, --strict: exit 2, one line naming byte %d" % (label, first), "rc %d %r" % (rc, err[:300]))
    # the warning lasts: kept in the index, said again on every open
    rc, out, err = tixtest.tix(args, "index", path)
    rc2, out2, err2 = tixtest.tix(args, "summary", path)
    rc3, out3, err3 = tixtest.tix(args, "info", path)
    chk.check(rc2 == 0 and "malformed" in err2 and "malformed" in out3,
              "the warning lasts: a reused index says it again, tix info lists it", err2[:200])
    rc4, out4, err4 = tixtest.tix(args, "summary", path, "--strict")
    chk.check(rc4 == 2 and "malformed" not in err4 and ("byte %d" % first) in err4,
              "--strict with an index built without it: exit 2, the error", "rc %d %r" % (rc4, err4[:300]))
    # the last event bad: the keys after traceEvents are kept
    t, at = corrupt(text, spans, n - 1, "quote")
    path = os.path.join(d, "last.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(t)
    rc, out, err = tixtest.tix(args, "info", path)
    rcg, outg, errg = tixtest.tix(args, "info", src)
    base = [l for l in outg.split("\n") if l.startswith("base:")]
    chk.check(rc == 0 and base and base[0] in out and "malformed" in out,
              "the last event bad: baseTimeNanoseconds after traceEvents still read", out[-400:])
    # gzip: the same answers
    bad = [(mid, "quote")]
    t, at = corrupt(text, spans, mid, "quote")
    gz = os.path.join(d, "bad.json.gz")
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write(t)
    ref = os.path.join(d, "ref.json")
    with open(ref, "w", encoding="utf-8") as f:
        f.write(without(text, spans, [mid]))
    want = faces(args, ref)
    for env_label, env in (("one thread", one), ("two threads", dict(os.environ, TIX_SPLIT_MIN="1000")),
                           ("4 KB windows", small)):
        got = faces(args, gz, env=env)
        rc, out, err = tixtest.run([args.tix, "summary", gz, "--no-cache"], env=env)
        chk.check(got == want and "1 malformed event skipped" in err and "(of the inflated JSON)" in err,
                  "gzip, %s: the same summaries, the warning names the inflated offset" % env_label, err[:300])
    # many bad events: no rescan to the end of the file for each
    t = text
    step = max(1, n // 2000)
    many = list(range(1, n - 1, step))[:2000]
    for k in reversed(many):
        t, _ = corrupt(t, spans, k, "quote")
    path = os.path.join(d, "many.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(t)
    rc, out, err = tixtest.run([args.tix, "summary", path, "--no-cache"], timeout=120)
    m = re.search(r"(\d+) malformed events skipped in (\d+) places", err)
    chk.check(rc == 0 and m and int(m.group(1)) == len(many) and int(m.group(2)) == len(many),
              "%d bad events: each skipped alone, in time (no rescan to the end per event)" % len(many),
              "rc %d %r" % (rc, err[:300]))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

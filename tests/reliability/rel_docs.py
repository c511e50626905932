#!/usr/bin/env python3
"""Issue 9, item 10: docs/RELIABILITY.md's table of hostile inputs says
what tix does; these rows are checked against the binary, so the two cannot
drift again.  Before: the table said "nesting up to 4096 levels inside an
event" is kept (an event with 4096 levels inside its braces is refused),
and nothing about INT64_MIN or times beyond the range (skipped; the header
said "may be any int64").  Each case: the row (found by its first cell)
must give the exit status tix gives, and the message fragment tix prints
must be in the row.

    rel_docs.py --tix TIX --work DIR
"""
import os
import shutil

import reltest
from reltest import tixtest

DOC = os.path.join(tixtest.SRC, "docs", "RELIABILITY.md")
K = '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%s,"dur":%s%s}'


def nested(levels):
    """An event whose deepest value lies `levels` deep, its own braces counted."""
    inner = levels - 2
    return K % ("deep", "5", "1", ',"args":{"x":%s%s}' % ("[" * inner, "]" * inner))


CASES = [
    # (first cell of the row, events, exit status, what the row says, what tix says)
    ("an event nesting 4096 levels", [nested(4096)], 0, "the event kept", "deep"),
    ("an event nesting 4097 levels", [nested(4097)], 0, "1 malformed event skipped",
     "nests deeper than 4096 levels"),
    ("`ts` 1e30", [K % ("min", "-9223372036854775.808", "1", "")], 0, "-9223372036854775.808 (INT64_MIN ns)",
     "1 events skipped"),
    ("`ts` beyond 146 years", [K % ("far", "4611686018427388.000", "1", "")], 0,
     "start more than 146 years from the trace's zero", "start more than 146 years from the trace's zero"),
    ("an event ending past TIX_TIME_MAX", [K % ("end", "4611686018427387.000", "5", "")], 0,
     "events cut short where the time range ends", "events cut short where the time range ends"),
    ("a negative `dur`", [K % ("neg", "7", "-1", "")], 0, "have no known end", "have no known end"),
]


def row(doc, first):
    for line in doc.split("\n"):
        if line.startswith("| " + first):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            return cells
    return None


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_docs")
    d = os.path.join(args.work, "docs")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    doc = open(DOC, encoding="utf-8").read()
    for n, (first, evs, want, in_row, in_tix) in enumerate(CASES):
        trace = os.path.join(d, "case%d.json" % n)
        with open(trace, "w") as f:
            f.write('{"traceEvents": [%s]}' % ",".join([K % ("ok", "1", "1", "")] + evs))
        rc, out, err = tixtest.tix(args, "summary", trace, "--no-cache")
        cells = row(doc, first)
        if not chk.check(cells is not None and len(cells) >= 3, "docs/RELIABILITY.md has the row '%s'" % first):
            continue
        chk.check(cells[1] == str(rc) and rc == want, "'%s': tix exits %d, the row says %s" % (first, rc, cells[1]),
                  "expected %d; stderr %r" % (want, err[:200]))
        chk.check(in_row in " ".join(cells) and in_tix in err + out,
                  "'%s': the row says \"%s\", tix \"%s\"" % (first, in_row, in_tix),
                  "row %r; tix said %r" % (" | ".join(cells)[:300], (err + out)[:300]))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

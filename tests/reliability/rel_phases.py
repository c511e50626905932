#!/usr/bin/env python3
"""Issue 23, item 4: every phase of the finish hands its failure on, whether
it runs on the calling thread or beside the others (index/build/finish.c:
name-rows beside marks, steps and graph; breakdown beside aggregate;
row-sums beside names and op-shapes).  Each
phase that TIX_TIMING names is made to fail in turn (TIX_FAIL_PHASE=NAME, as
a full disk would), on one thread (TIX_THREADS=1: the table's order) and
with the finish and the parse on two (TIX_SPLIT_ROWS=2, TIX_SPLIT_MIN=4096:
the BESIDE phases on a thread of their own, ROWS warmed by the second parse
thread): exit 3, one line naming the phase and the index, no index and
nothing else left in its folder.  Then, with the times on: a BESIDE phase's
failure surfaces at its JOIN, after the phases that ran meanwhile (their
timing lines are there), and the phases after the JOIN do not run.

    rel_phases.py --tix TIX --work DIR
"""
import os
import re

import reltest
from reltest import tixtest

PHASE = re.compile(r"^tix: timing: (\S+) +[0-9.]+ s( \(beside\))?$", re.M)
ONE = {"TIX_THREADS": "1"}
TWO = {"TIX_SPLIT_ROWS": "2", "TIX_SPLIT_MIN": "4096", "TIX_PARSE_WINDOW": "65536"}


def run(args, trace, out, env):
    return tixtest.tix(args, "index", trace, "-o", out, env=dict(os.environ, **env))


def main():
    args, chk, d = reltest.start(__doc__, "rel_phases", "phases")
    trace = tixtest.generate(os.path.join(args.work, "phases.json"), "--steps", 3, "--layers", 6)
    ok = os.path.join(d, "ok.tix")
    rc, o, e = run(args, trace, ok, dict(TWO, TIX_TIMING="1"))
    found = PHASE.findall(e)
    names = [n for n, _ in found if n not in ("parse",)]
    beside = [n for n, b in found if b]
    chk.check(rc == 0 and "place" in names and "write" in names,
              "the finish's phases, from a build's TIX_TIMING lines", "rc %d %r" % (rc, e[:500]))
    chk.check(beside == ["name-rows", "breakdown", "row-sums"],
              "name-rows, breakdown and row-sums run beside the others", repr(found))
    folder = os.path.join(d, "out")
    for label, env in (("one thread", ONE), ("two threads", TWO)):
        for name in names:
            os.makedirs(folder, exist_ok=True)
            out = os.path.join(folder, "x.tix")
            reltest.expect(args, chk, "%s, %s fails" % (label, name), ("index", trace, "-o", out), 3,
                           ("the %s phase failed on command" % name, "x.tix"),
                           env=dict(os.environ, TIX_FAIL_PHASE=name, **env))
            chk.check(not os.listdir(folder), "%s, %s fails: nothing left where the index was to go"
                      % (label, name), repr(os.listdir(folder)))
    # where a BESIDE phase's failure surfaces
    order = [n for n, _ in found]
    for name, meanwhile in (("name-rows", ("marks", "steps", "graph")), ("breakdown", ("aggregate",)),
                            ("row-sums", ("names", "op-shapes"))):
        out = os.path.join(folder, "x.tix")
        rc, o, e = run(args, trace, out, dict(TWO, TIX_TIMING="1", TIX_FAIL_PHASE=name))
        ran = [n for n, _ in PHASE.findall(e)]
        after = order[order.index(meanwhile[-1]) + 1:] if meanwhile[-1] in order else []
        later = [n for n in after if n not in beside and n != "parse"]
        chk.check(rc == 3 and all(m in ran for m in meanwhile) and name not in ran and
                  not any(n in ran for n in later),
                  "two threads, %s fails: %s ran meanwhile, then the finish stopped at the join (none of %s)"
                  % (name, ", ".join(meanwhile), ", ".join(later)), "rc %d ran %r" % (rc, ran))
        chk.check(not os.listdir(folder), "two threads, %s fails: nothing left" % name, repr(os.listdir(folder)))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The reader's queries over many rows (tix_find_by_name, tix_rows_beneath)
against the plain way of asking the same, through the white-box tool
tix_queries, on generated traces (python frames with_stack, whose
ancestors are listed rather than walked; the --with-stack, --graph and
--two-processes variants) and, when present, the real traces.

    e2e_queries.py --tix TIX --queries TIX_QUERIES --work DIR [--traces DIR]
"""

import os
import sys

import tixtest


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--queries", required=True, help="the tix_queries tool")
    p.add_argument("--traces", help="folder of real traces (TIX_TRACES_DIR)")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_queries")
    variants = [("frames", ("--steps", 2, "--layers", 3, "--python-frames", "--stack-depth", 4)),
                ("with-stack", ("--steps", 2, "--layers", 2, "--python-frames", "--with-stack")),
                ("two-processes", ("--steps", 2, "--layers", 2, "--two-processes")),
                ("sglang", ("--steps", 3, "--layers", 2, "--marker", "sglang", "--bs", 4))]
    indexes = []
    for name, opts in variants:
        trace = tixtest.generate(os.path.join(args.work, "q-%s.json" % name), *opts)
        out = os.path.join(args.work, "q-%s.tix" % name)
        rc, _, err = tixtest.tix(args, "index", trace, "-o", out)
        if chk.check(rc == 0, "index the %s trace" % name, err):
            indexes.append(out)
    if args.traces and os.path.isdir(args.traces):
        for d in (args.traces, os.path.join(args.traces, "real")):
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                if not f.endswith((".json", ".json.gz")) or "capture" in f:
                    continue
                out = os.path.join(args.work, "q-real-%s.tix" % f)
                rc, _, err = tixtest.tix(args, "index", os.path.join(d, f), "-o", out)
                if rc == 0:
                    indexes.append(out)
    rc, out, err = tixtest.run([args.queries] + indexes, timeout=600)
    for line in out.split("\n"):
        if line.startswith("FAIL"):
            print(line)
    chk.check(rc == 0, "tix_queries on %d indexes: %s" % (len(indexes), (out.strip().split("\n") or [""])[-1]),
              "rc %d %s %s" % (rc, tixtest.describe_crash(rc), (err or out)[-600:]))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

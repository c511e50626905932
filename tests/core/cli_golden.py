#!/usr/bin/env python3
"""Golden outputs of the CLI (issue 10, item 11): what `tix summary`, `show`,
`info`, `index` and `diff` print, as text, CSV and JSON, on seeded
generated traces (the generator writes the same bytes for the same options
and seed), compared with tests/core/golden/NAME.txt and shown as a diff.

    cli_golden.py --tix TIX --work DIR [--update]

Each golden file is the transcript of one command: a first line
`$ tix ARGS`, its stdout as printed, then `--- stderr` and what it wrote
there (hints, warnings) and `--- exit N` when it is not 0.  The commands run
in the work folder on relative trace names; only what must vary is
normalised: the work folder's absolute path (<work>), the index's size in
`info` and `index` lines and the time `index` took.

--update writes the outputs as the new golden files (after a deliberate
change; review them with git diff).  The documented command:
    cmake --build build --target cli_golden_update
"""

import difflib
import os
import re
import sys

import tixtest

GOLD = os.path.join(tixtest.HERE, "golden")

# the traces: name -> generator options (seeded: the same bytes every time)
TRACES = {
    "glm.json.gz": ["--steps", "4"],
    "fixed.json.gz": ["--steps", "4", "--fixed"],
    "sgl.json.gz": ["--marker", "sglang", "--steps", "6", "--layers", "6"],
    "vllm.json.gz": ["--marker", "vllm", "--steps", "2", "--layers", "2"],
    "none.json.gz": ["--marker", "none", "--steps", "2", "--layers", "2"],
    # two traces of graph replays: the second given as the first's capture
    "graph-a.json.gz": ["--steps", "2", "--layers", "2", "--graph", "--seed", "5"],
    "graph-b.json.gz": ["--steps", "2", "--layers", "2", "--graph", "--seed", "6"],
    # as many steps as glm.json.gz, a twelfth of its layers: counts that change by thousands
    "small.json.gz": ["--steps", "4", "--layers", "6"],
    # a TP4 decode whose rank 2 computes slower (tp4/tp4-rank0.json ... rank3)
    "tp4/tp4.json": ["--ranks", "4", "--slow-rank", "2", "--steps", "3", "--layers", "4"],
    # GPU work (and copies) before the trace, CUDA graph replays, their capture
    "pre.json.gz": ["--steps", "3", "--layers", "4", "--pre-window", "6", "--graph",
                    "--capture-out", "pre-capture.json.gz", "--seed", "3"],
}
CAP = ["--graph-capture", "pre-capture.json.gz"]
RANKS = ["tp4/tp4-rank%d.json" % k for k in range(4)]

# name -> the command's arguments
CASES = [
    # summary --by kernel (the default)
    ("summary-kernel", ["summary", "glm.json.gz"]),
    ("summary-kernel-csv", ["summary", "glm.json.gz", "--format", "csv"]),
    ("summary-kernel-json", ["summary", "glm.json.gz", "--format", "json"]),
    ("summary-kernel-step", ["summary", "glm.json.gz", "--step", "1"]),
    ("summary-kernel-step-csv", ["summary", "glm.json.gz", "--step", "1", "--top", "5",
                                 "--format", "csv"]),
    ("summary-kernel-step-json", ["summary", "glm.json.gz", "--step", "1", "--top", "3",
                                  "--format", "json"]),
    ("summary-kernel-top-sort-avg", ["summary", "glm.json.gz", "--top", "5", "--sort", "avg_ns"]),
    ("summary-kernel-sort-name", ["summary", "glm.json.gz", "--top", "4", "--sort", "name"]),
    ("summary-kernel-timeunit-us", ["summary", "glm.json.gz", "--top", "6", "--sort", "instances",
                                    "--timeunit", "us"]),
    ("summary-kernel-timeunit-ms-csv", ["summary", "glm.json.gz", "--top", "3", "--timeunit", "ms",
                                        "--format", "csv"]),
    ("summary-kernel-timeunit-s-all", ["summary", "glm.json.gz", "--top", "0", "--timeunit", "s"]),
    ("summary-kernel-before-graph", ["summary", "pre.json.gz"] + CAP + ["--top", "0"]),
    # summary --by step
    ("summary-step", ["summary", "glm.json.gz", "--by", "step"]),
    ("summary-step-csv", ["summary", "glm.json.gz", "--by", "step", "--format", "csv"]),
    ("summary-step-json", ["summary", "glm.json.gz", "--by", "step", "--format", "json"]),
    ("summary-step-sort-wall", ["summary", "glm.json.gz", "--by", "step", "--sort", "wall_ns",
                                "--top", "2"]),
    ("summary-step-timeunit-ms", ["summary", "glm.json.gz", "--by", "step", "--timeunit", "ms"]),
    ("summary-step-before", ["summary", "pre.json.gz", "--by", "step"]),
    ("summary-step-before-json", ["summary", "pre.json.gz", "--by", "step", "--format", "json"]),
    ("summary-step-sglang", ["summary", "sgl.json.gz", "--by", "step"]),
    ("summary-step-vllm", ["summary", "vllm.json.gz", "--by", "step"]),
    ("summary-step-none", ["summary", "none.json.gz", "--by", "step"]),
    # summary --by op
    ("summary-op", ["summary", "glm.json.gz", "--by", "op"]),
    ("summary-op-csv", ["summary", "glm.json.gz", "--by", "op", "--top", "10", "--format", "csv"]),
    ("summary-op-json", ["summary", "glm.json.gz", "--by", "op", "--top", "5", "--format", "json"]),
    ("summary-op-step", ["summary", "glm.json.gz", "--by", "op", "--step", "2", "--top", "8"]),
    ("summary-op-sort-cpu-ns", ["summary", "glm.json.gz", "--by", "op", "--top", "5", "--sort",
                                "cpu_ns", "--timeunit", "ns"]),
    ("summary-op-captured", ["summary", "pre.json.gz"] + CAP + ["--by", "op", "--top", "0"]),
    ("summary-op-captured-json", ["summary", "pre.json.gz"] + CAP + ["--by", "op", "--top", "4",
                                                                     "--format", "json"]),
    # summary --by rank
    ("summary-rank", ["summary"] + RANKS + ["--by", "rank"]),
    ("summary-rank-json", ["summary"] + RANKS + ["--by", "rank", "--format", "json"]),
    ("summary-rank-step", ["summary"] + RANKS + ["--by", "rank", "--step", "1"]),
    # show
    ("show", ["show", "glm.json.gz", "--kernel", "unrolled", "--step", "1", "--limit", "2"]),
    ("show-csv", ["show", "glm.json.gz", "--kernel", "unrolled", "--step", "1", "--limit", "3",
                  "--format", "csv"]),
    ("show-json", ["show", "glm.json.gz", "--kernel", "unrolled", "--step", "1", "--limit", "1",
                   "--format", "json"]),
    ("show-timeunit-us", ["show", "glm.json.gz", "--kernel", "Memcpy DtoH", "--limit", "1",
                          "--timeunit", "us"]),
    ("show-copy", ["show", "glm.json.gz", "--kernel", "Memcpy HtoD", "--limit", "2"]),
    ("show-before", ["show", "pre.json.gz", "--kernel", "nccl", "--limit", "3"]),
    ("show-before-csv", ["show", "pre.json.gz", "--kernel", "nccl|DtoD", "--limit", "4",
                         "--format", "csv"]),
    ("show-replay", ["show", "pre.json.gz", "--kernel", "unrolled", "--limit", "1"]),
    ("show-replay-captured", ["show", "pre.json.gz"] + CAP + ["--kernel", "unrolled",
                                                              "--limit", "1"]),
    ("show-replay-captured-json", ["show", "pre.json.gz"] + CAP + ["--kernel", "unrolled",
                                                                   "--limit", "1",
                                                                   "--format", "json"]),
    # a capture trace with replays of its own: no advice to give it a capture
    ("index-capture-replays", ["index", "graph-a.json.gz", "--graph-capture", "graph-b.json.gz",
                               "-o", "graph-a-copy.tix"]),
    # info, index
    ("info", ["info", "glm.json.gz"]),
    ("info-index-file", ["info", "glm.json.gz.tix"]),
    ("info-before-graph", ["info", "pre.json.gz"] + CAP),
    ("index", ["index", "sgl.json.gz", "-o", "sgl-copy.tix"]),
    # diff: before and after the gather-then-cast fix; different step counts
    ("diff", ["diff", "glm.json.gz", "fixed.json.gz"]),
    ("diff-top", ["diff", "glm.json.gz", "fixed.json.gz", "--top", "3"]),
    ("diff-op", ["diff", "glm.json.gz", "fixed.json.gz", "--by", "op", "--top", "5"]),
    ("diff-step", ["diff", "glm.json.gz", "fixed.json.gz", "--by", "step"]),
    ("diff-shape", ["diff", "glm.json.gz", "fixed.json.gz", "--by", "shape", "--top", "5"]),
    ("diff-step1", ["diff", "glm.json.gz", "fixed.json.gz", "--step", "1", "--top", "3"]),
    ("diff-csv", ["diff", "glm.json.gz", "fixed.json.gz", "--top", "3", "--format", "csv"]),
    ("diff-json", ["diff", "glm.json.gz", "fixed.json.gz", "--top", "2", "--format", "json"]),
    ("diff-per-step", ["diff", "glm.json.gz", "sgl.json.gz", "--top", "4"]),
    # different step counts: a step row is one step of each side (its ratio is
    # NEW/BASE of that step); counts are per step like the times, JSON says so
    ("diff-per-step-steps", ["diff", "glm.json.gz", "sgl.json.gz", "--by", "step"]),
    ("diff-per-step-json", ["diff", "glm.json.gz", "sgl.json.gz", "--top", "2", "--format", "json"]),
    ("diff-per-step-op-csv", ["diff", "glm.json.gz", "sgl.json.gz", "--by", "op", "--top", "3",
                              "--format", "csv"]),
    ("diff-counts", ["diff", "glm.json.gz", "small.json.gz", "--sort", "instances_delta", "--top", "3"]),
    # what a wrong command line prints
    ("error-step", ["summary", "glm.json.gz", "--step", "9"]),
    ("error-sort", ["summary", "glm.json.gz", "--sort", "nosuch"]),
]


def normalise(text, work):
    for w in sorted({work, os.path.realpath(work)}, key=len, reverse=True):
        text = text.replace(w, "<work>")
    # the index's size in `info` (index: X (1.5 MB, format 2)) and `index`
    text = re.sub(r"(?m)^(index: .*?)[0-9.]+ [kMG]?B, format", r"\1<size>, format", text)
    text = re.sub(r"(?m)^(indexed .* \()[0-9.]+ [kMG]?B\) in [0-9.]+ s$", r"\1<size>) in <time> s",
                  text)
    return text


def transcript(args, argv):
    rc, out, err = tixtest.tix(args, *argv, cwd=args.work, env=args.env)
    t = "$ tix %s\n" % " ".join(a if re.fullmatch(r"[\w.,:/=+-]+", a) else "'%s'" % a
                                for a in argv)
    t += out
    if out and not out.endswith("\n"):
        t += "\n--- no newline at the end\n"
    if err:
        t += "--- stderr\n" + err + ("" if err.endswith("\n") else "\n")
    if rc != 0:
        t += "--- exit %d\n" % rc
    return normalise(t, args.work)


def main():
    p = tixtest.arg_parser(__doc__.split("\n\n")[0])
    p.add_argument("--update", action="store_true", help="write the outputs as the golden files")
    args = tixtest.setup(p.parse_args())
    args.work = os.path.abspath(args.work)
    args.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TZ="UTC")
    chk = tixtest.Checker("core_cli_golden")
    for name, opts in TRACES.items():
        path = os.path.join(args.work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # the capture trace is written beside it, by name: run in the work folder
        cwd = os.getcwd()
        os.chdir(args.work)
        try:
            tixtest.generate(path, *opts)
        finally:
            os.chdir(cwd)
    # the indexes are built once, before the transcripts, so that no build
    # message or timing lands in one
    for name in ("glm.json.gz", "fixed.json.gz", "sgl.json.gz", "vllm.json.gz", "none.json.gz",
                 "small.json.gz"):
        tixtest.tix(args, "summary", name, "--top", "1", cwd=args.work, env=args.env)
    tixtest.tix(args, "summary", "pre.json.gz", *CAP, "--top", "1", cwd=args.work, env=args.env)
    tixtest.tix(args, "summary", "pre.json.gz", "--top", "1", cwd=args.work, env=args.env)

    os.makedirs(GOLD, exist_ok=True)
    names = set()
    for name, argv in CASES:
        names.add(name + ".txt")
        got = transcript(args, argv)
        gold = os.path.join(GOLD, name + ".txt")
        if args.update:
            with open(gold, "w", encoding="utf-8") as f:
                f.write(got)
            print("wrote %s" % os.path.relpath(gold, tixtest.SRC))
            continue
        try:
            with open(gold, encoding="utf-8") as f:
                want = f.read()
        except FileNotFoundError:
            chk.check(False, name, "no golden file %s (refresh: cmake --build build --target "
                      "cli_golden_update)" % os.path.relpath(gold, tixtest.SRC))
            continue
        if got == want:
            chk.check(True, name)
            continue
        d = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                         "golden/%s.txt" % name, "tix " + " ".join(argv)))
        chk.check(False, name, "differs from tests/core/golden/%s.txt:\n%s" % (name, d))
    stale = sorted(f for f in os.listdir(GOLD) if f.endswith(".txt") and f not in names)
    for f in stale:
        if args.update:
            os.remove(os.path.join(GOLD, f))
            print("removed %s (no command of its name)" % f)
        else:
            chk.check(False, "golden/%s" % f, "no command of this name in cli_golden.py: remove it "
                      "(cli_golden_update does)")
    if args.update:
        print("core_cli_golden: %d outputs written to %s; review them with git diff"
              % (len(CASES), os.path.relpath(GOLD, tixtest.SRC)))
        return 0
    rc = chk.done()
    if rc:
        print("If the change is meant, refresh them:\n"
              "  cmake --build build --target cli_golden_update   "
              "(then review git diff tests/core/golden)")
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Every trace indexes, and `tix summary --by kernel|step|op --format json`
agrees with the independent recount (tests/ref/recount.py, whose docstring is
the contract).

    compare_recount.py --tix TIX --work DIR [--step-marker RE] TRACE|DIR...

Kernel groups: exact instances, total, min, max, median, average; stddev
within 1 ns.  Steps: same names, starts, walls, and the same GPU events in
each (counts, kernel and GPU time, busy time, top kernel); the GPU work
launched before the trace in "before_trace" (null when there is none).
Ops (parents by containment, R2): every op the recount lists (GPU events >
0) with the same GPU time, GPU events, calls and CPU time, ops named like a
step marker too (the kept markers are no ops, the other instances of the
name are); ops tix lists with GPU events that the recount does not are
reported too.
"""

import json
import os
import sys

import tixtest

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402  (the reference; shares no code with tix)


def tix_json(args, chk, trace, by, marker, label, step=None):
    argv = ["summary", trace, "--by", by, "--format", "json"]
    if step is not None:
        argv += ["--step", str(step)]
    if marker:
        argv += ["--step-marker", marker]
    rc, out, err = tixtest.tix(args, *argv)
    if not chk.check(rc == 0, "%s: tix summary --by %s exits 0" % (label, by),
                     "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300])):
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        chk.check(False, "%s: summary --by %s is valid JSON" % (label, by), str(e))
        return None


def compare_kernels(chk, label, tj, ref):
    if tj is None:
        return
    chk.eq(tj.get("total_gpu_ns"), ref["total_gpu_ns"], "%s: total_gpu_ns" % label)
    got = {(k["name"], k["kind"]): k for k in tj["kernels"]}
    want = {(k["name"], k["kind"]): k for k in ref["kernels"]}
    chk.eq(len(tj["kernels"]), len(got), "%s: kernel groups are unique by (name, kind)" % label)
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    chk.check(not missing and not extra, "%s: same %d kernel groups" % (label, len(want)),
              "missing %s; extra %s" % (missing[:5], extra[:5]))
    bad = []
    for key in sorted(set(want) & set(got)):
        g, w = got[key], want[key]
        for f in ("instances", "total_ns", "min_ns", "max_ns", "med_ns", "avg_ns"):
            if g.get(f) != w[f]:
                bad.append("%s %s: %s %r != %r" % (key[1], key[0][:60], f, g.get(f), w[f]))
        if not isinstance(g.get("stddev_ns"), (int, float)) or abs(g["stddev_ns"] - w["stddev_ns"]) > 1.0:
            bad.append("%s %s: stddev %r vs %r" % (key[1], key[0][:60], g.get("stddev_ns"), w["stddev_ns"]))
    chk.check(not bad, "%s: group stats (instances/total/min/max/med/avg exact, stddev +-1 ns)" % label,
              "; ".join(bad[:6]) + (" (+%d more)" % (len(bad) - 6) if len(bad) > 6 else ""))
    totals = [k["total_ns"] for k in tj["kernels"]]
    chk.check(totals == sorted(totals, reverse=True), "%s: groups sorted by total, descending" % label)
    pct = sum(k.get("time_pct", 0) for k in tj["kernels"])
    if tj["kernels"]:
        chk.check(abs(pct - 100.0) < 0.05 * len(tj["kernels"]) + 0.01,
                  "%s: Time %% adds up to 100" % label, "sum %.3f" % pct)


STEP_FIELDS = ("start_ns", "wall_ns", "kernels", "gpu_events", "kernel_ns", "gpu_ns", "gpu_busy_ns", "top_ns")


def compare_steps(chk, label, tj, ref):
    if tj is None:
        return
    got, want = tj["steps"], ref["steps"]
    chk.eq([s["name"] for s in got], [s["name"] for s in want], "%s: step names" % label)
    if len(got) == len(want):
        bad = []
        for g, w in zip(got, want):
            for f in ("index",) + STEP_FIELDS:
                if g.get(f) != w[f]:
                    bad.append("step %d %s: %r != %r" % (w["index"], f, g.get(f), w[f]))
            if g.get("top_kernel") != w["top_kernel"] and g.get("top_ns") != w["top_ns"]:
                bad.append("step %d top_kernel: %r != %r" % (w["index"], g.get("top_kernel"), w["top_kernel"]))
        chk.check(not bad, "%s: %d steps: start, wall, membership (kernels, gpu_events, kernel_ns, gpu_ns, "
                  "busy, top)" % (label, len(want)), "; ".join(bad[:6]))
    # R4: GPU work launched before the trace is its own row, never in a step
    gb, wb = tj.get("before_trace", "absent"), ref["before_trace"]
    if wb is None:
        chk.check(gb is None, "%s: before_trace is null" % label, "got %r" % (gb,))
    elif not isinstance(gb, dict):
        chk.check(False, "%s: before_trace row (%d GPU events)" % (label, wb["gpu_events"]), "got %r" % (gb,))
    else:
        bad = ["%s: %r != %r" % (f, gb.get(f), wb[f])
               for f in ("kernels", "gpu_events", "kernel_ns", "gpu_ns", "top_ns") if gb.get(f) != wb[f]]
        if gb.get("name") != wb["name"] or gb.get("index", "absent") is not None:
            bad.append("name/index %r/%r" % (gb.get("name"), gb.get("index", "absent")))
        chk.check(not bad, "%s: before_trace: %d GPU events, %d kernels, %d ns" % (
            label, wb["gpu_events"], wb["kernels"], wb["kernel_ns"]), "; ".join(bad))


def compare_ops(chk, label, tj, ref):
    if tj is None:
        return
    got = {}
    dup = []
    for o in tj["ops"]:
        if o["name"] in got:
            dup.append(o["name"])
        got[o["name"]] = o
    chk.check(not dup, "%s: op names are unique" % label, "duplicates %s" % dup[:5])
    want = {o["name"]: o for o in ref["ops"]}
    bad = []
    for name, w in sorted(want.items()):
        g = got.get(name)
        if g is None:
            bad.append("%s: missing" % name[:60])
        elif any(g.get(f) != w[f] for f in ("gpu_ns", "gpu_events", "calls", "cpu_ns")):
            bad.append("%s: gpu_ns/gpu_events/calls/cpu_ns %s/%s/%s/%s != %d/%d/%d/%d" % (
                name[:60], g.get("gpu_ns"), g.get("gpu_events"), g.get("calls"), g.get("cpu_ns"),
                w["gpu_ns"], w["gpu_events"], w["calls"], w["cpu_ns"]))
    extra = [n for n, g in got.items() if g["gpu_events"] > 0 and n not in want]
    chk.check(not bad, "%s: %d ops with GPU time agree" % (label, len(want)),
              "; ".join(bad[:6]) + (" (+%d more)" % (len(bad) - 6) if len(bad) > 6 else ""))
    chk.check(not extra, "%s: no op with GPU time that the recount lacks" % label, "extra %s" % extra[:5])
    gns = [o["gpu_ns"] for o in tj["ops"]]
    chk.check(gns == sorted(gns, reverse=True), "%s: ops sorted by GPU time, descending" % label)


def compare_trace(args, chk, trace, marker=None, label=None, partial=False, tr=None):
    """All three views of one trace against the recount.  Returns the tix
    JSON outputs (kernel, step, op) for further checks."""
    label = label or os.path.basename(trace)
    if marker:
        label += " [--step-marker %s]" % marker
    if tr is None:
        tr = recount.load_trace(trace, partial=partial, marker=marker)
    k_ref = recount.by_kernel(tr)
    s_ref = recount.by_step(tr, marker)
    o_ref = recount.by_op(tr)
    kj = tix_json(args, chk, trace, "kernel", marker, label)
    sj = tix_json(args, chk, trace, "step", marker, label)
    oj = tix_json(args, chk, trace, "op", marker, label)
    compare_kernels(chk, label, kj, k_ref)
    compare_steps(chk, label, sj, s_ref)
    compare_ops(chk, label, oj, o_ref)
    # the ops of a step (summary --by op --step N): the first two steps
    for st in range(min(2, len(s_ref["steps"]))):
        lab = "%s step %d" % (label, st)
        compare_ops(chk, lab, tix_json(args, chk, trace, "op", marker, lab, st),
                    recount.by_op(tr, step=st))
    return kj, sj, oj


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--step-marker")
    p.add_argument("traces", nargs="+", help="trace files or folders of them")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("compare_recount")
    missing = [t for t in args.traces if not os.path.exists(t)]
    if missing:
        # a clone with no ../shared beside it: skipped, not failed (ctest
        # shows it as Skipped: SKIP_RETURN_CODE 77)
        print("skip  no trace folder %s (the shared corpus of HTA traces, beside the checkout)"
              % ", ".join(missing))
        return 77
    files = []
    for t in args.traces:
        if os.path.isdir(t):
            files += sorted(os.path.join(t, f) for f in os.listdir(t)
                            if f.endswith(".json") or f.endswith(".json.gz"))
        else:
            files.append(t)
    if not chk.check(files, "found traces in %s" % " ".join(args.traces)):
        return chk.done()
    for f in files:
        f = tixtest.stage(f, args.work)
        rc, out, err = tixtest.tix(args, "index", f, "-o", os.path.join(args.work, os.path.basename(f) + ".tix"))
        chk.check(rc == 0, "%s: tix index exits 0" % os.path.basename(f),
                  "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300]))
        compare_trace(args, chk, f, args.step_marker)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

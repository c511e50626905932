#!/usr/bin/env python3
"""`tix diff BASE NEW` against deltas worked out from the independent recount.

    e2e_diff.py --tix TIX --work DIR [--real DIR]

  story      the generator's before/after pair (same seed; --fixed is the
             gather-then-cast patch): the cast kernel leads the diff, with
             its grid [557496,1,1] and [377050,1,1] in the Grid base / Grid new columns; per-step GPU busy drops;
             every row's instances and totals equal the recount's on each
             side (tests/ref/recount.py, which shares no code with tix)
  known      hand-made A/B traces with deltas known by construction: a
             kernel with one instance less, one removed, one added, one
             slower; --by op; --by step in order
  steps      traces with different step counts: per-step normalisation is
             said, and per_step_ns = total / steps on each side
  real       (when the real traces are there) two real traces: every
             kernel row exact against the recount
  usage      one trace only, or --step beyond either trace: exit 1 / 2
"""

import json
import os
import re
import sys

import tixtest

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402  (the reference; shares no code with tix)

CAST_PREFIX = "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda"


def diff_json(args, chk, label, *argv):
    rc, out, err = tixtest.tix(args, "diff", *argv, "--format", "json")
    if not chk.check(rc == 0, "%s: tix diff exits 0" % label, "rc %d %s" % (rc, err.strip()[:300])):
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        chk.check(False, "%s: valid JSON" % label, str(e))
        return None


def recount_kernels(path):
    tr = recount.Trace(recount.load_events(path))
    return {(k["name"], k["kind"]): k for k in recount.by_kernel(tr)["kernels"]}


def check_exact(chk, label, d, base, new):
    """Every kernel row of the diff against the recount of both traces."""
    if d is None:
        return
    a, b = recount_kernels(base), recount_kernels(new)
    bad = []
    seen = set()
    for r in d["rows"]:
        key = (r.get("mangled_name", r["name"]), r["kind"])
        seen.add(key)
        wa, wb = a.get(key), b.get(key)
        want = (wa["instances"] if wa else 0, wb["instances"] if wb else 0,
                wa["total_ns"] if wa else 0, wb["total_ns"] if wb else 0)
        got = (r["instances_base"], r["instances_new"], r["total_ns_base"], r["total_ns_new"])
        if got != want:
            bad.append("%s: %s != %s" % (key[0][:60], got, want))
        if r["instances_delta"] != got[1] - got[0] or r["total_ns_delta"] != got[3] - got[2]:
            bad.append("%s: deltas %s %s" % (key[0][:60], r["instances_delta"], r["total_ns_delta"]))
        status = "added" if not wa else "removed" if not wb else "both"
        if r["status"] != status:
            bad.append("%s: status %s, want %s" % (key[0][:60], r["status"], status))
    # demangled names: the recount keys by the trace's own name, tix by the
    # demangled one with mangled_name beside it
    missing = [k for k in set(a) | set(b) if k not in seen]
    chk.check(not bad and not missing, "%s: every kernel row exact against the recount (%d rows)"
              % (label, len(d["rows"])), "; ".join(bad[:5]) + (" missing %s" % missing[:3] if missing else ""))
    if d["per_step_normalised"]:  # different step counts: ranked per step
        deltas = [abs(r["per_step_ns_new"] - r["per_step_ns_base"]) for r in d["rows"]]
    else:
        deltas = [abs(r["total_ns_delta"]) for r in d["rows"]]
    chk.check(all(deltas[i] >= deltas[i + 1] - 0.5 for i in range(len(deltas) - 1)),
              "%s: rows sorted by |delta| (%s)" % (label, "per step" if d["per_step_normalised"] else "total"))


def write_trace(path, steps):
    """steps: a list of steps, each a list of (kernel name, dur_us)."""
    ev, t, corr = [], 1000.0, 1
    for i, kernels in enumerate(steps):
        start = t
        for name, dur in kernels:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "op_" + name, "pid": 1, "tid": 1,
                       "ts": t, "dur": 4.0})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 1, "dur": 2.0, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 3,
                       "dur": dur, "args": {"correlation": corr, "device": 0, "stream": 7,
                                            "grid": [4, 1, 1], "block": [128, 1, 1]}})
            corr += 1
            t += 5 + dur
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1, "tid": 1,
                   "ts": start - 0.5, "dur": t - start + 1})
        t += 10
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    return path


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--real", help="the real traces folder (optional)")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_diff")
    w = args.work

    # story: the fix that made decode faster
    opts = ["--steps", 4, "--layers", 12, "--seed", 7]
    before = tixtest.generate(os.path.join(w, "before.json"), *opts)
    after = tixtest.generate(os.path.join(w, "after.json"), *(opts + ["--fixed"]))
    d = diff_json(args, chk, "story", before, after)
    if d and d["rows"]:
        top = d["rows"][0]
        chk.check(top["name"].startswith(CAST_PREFIX), "story: the cast kernel leads the diff",
                  "first row %s" % top["name"][:80])
        chk.eq((top["grid_base"], top["grid_new"]), ([557496, 1, 1], [377050, 1, 1]),
               "story: the cast's grid on both sides")
        chk.check(top["total_ns_delta"] < 0 and top["instances_delta"] == 0,
                  "story: same number of casts, less time")
        ps = d["per_step"]
        chk.check(ps["gpu_busy_ns_new"] < 0.85 * ps["gpu_busy_ns_base"],
                  "story: per-step GPU busy drops (%.0f -> %.0f)" % (ps["gpu_busy_ns_base"], ps["gpu_busy_ns_new"]))
        chk.check(not d["per_step_normalised"], "story: same step count, not normalised")
    check_exact(chk, "story", d, before, after)
    rc, out, err = tixtest.tix(args, "diff", before, after, "--top", 3)
    chk.check(rc == 0 and re.search(r"\[557496,1,1\] +\[377050,1,1\]", out) and "per step: wall" in out,
              "story: text shows the header and the grid change", out[:400])

    # known deltas, by construction
    a = write_trace(os.path.join(w, "a.json"), [[("k1", 10), ("k1", 10), ("k1", 10), ("k2", 5), ("k4", 20)]])
    b = write_trace(os.path.join(w, "b.json"), [[("k1", 10), ("k1", 10), ("k3", 7), ("k4", 30)]])
    d = diff_json(args, chk, "known", a, b)
    if d:
        rows = {r["name"]: r for r in d["rows"]}
        chk.eq({n: (r["status"], r["instances_delta"], r["total_ns_delta"]) for n, r in rows.items()},
               {"k1": ("both", -1, -10000), "k2": ("removed", -1, -5000), "k3": ("added", 1, 7000),
                "k4": ("both", 0, 10000)}, "known: statuses and deltas")
        chk.eq([r["name"] for r in d["rows"]], ["k1", "k4", "k3", "k2"],
               "known: sorted by |delta| (ties by name)")
        chk.eq(rows["k4"]["ratio"], 1.5, "known: ratio new / base")
        chk.check(rows["k3"]["ratio"] is None and rows["k2"]["grid_new"] is None,
                  "known: no ratio or grid where a side is absent")
    check_exact(chk, "known", d, a, b)
    d = diff_json(args, chk, "known --by op", a, b, "--by", "op")
    if d:
        rows = {r["name"]: r for r in d["rows"]}
        chk.eq((rows["op_k1"]["instances_base"], rows["op_k1"]["instances_new"], rows["op_k1"]["total_ns_delta"]),
               (3, 2, -10000), "known --by op: calls and GPU time beneath op_k1")
    d = diff_json(args, chk, "known --by step", a, b, "--by", "step")
    if d:
        chk.eq([(r["step"], r["instances_base"], r["instances_new"]) for r in d["rows"]], [(0, 5, 4)],
               "known --by step: kernels per step")

    # different step counts: per step
    c = write_trace(os.path.join(w, "c.json"), [[("k1", 10)], [("k1", 10)]])
    e = write_trace(os.path.join(w, "e.json"), [[("k1", 10)], [("k1", 10)], [("k1", 10)], [("k1", 10)]])
    d = diff_json(args, chk, "steps", c, e)
    if d:
        r = d["rows"][0]
        chk.check(d["per_step_normalised"] and r["per_step_ns_base"] == 10000 and r["per_step_ns_new"] == 10000
                  and r["ratio"] == 1.0, "steps: 2 vs 4 steps compare per step (same per-step time)",
                  json.dumps(r)[:300])
        chk.check(r["instances_per_step_base"] == 1 and r["instances_per_step_new"] == 1
                  and r["instances_per_step_delta"] == 0 and r["per_step"] is True,
                  "steps: counts per step too (1 -> 1 a step, +0), the row says per_step",
                  json.dumps(r)[:300])
    rc, out, err = tixtest.tix(args, "diff", c, e)
    chk.check(rc == 0 and "2 vs 4 steps: counts and times below are per step" in out,
              "steps: the text says it once, above the table", out)
    # by step: a row is one step of each side, never divided again
    d = diff_json(args, chk, "steps --by step", c, e, "--by", "step")
    if d:
        chk.eq([(r["step"], r["status"], r["ratio"], r["per_step"]) for r in d["rows"]],
               [(0, "both", 1.0, False), (1, "both", 1.0, False), (2, "added", None, False),
                (3, "added", None, False)], "steps --by step: each step's own ratio (10 -> 10 us: 1.00x)")

    # real traces, when they are there
    if args.real and os.path.isdir(args.real):
        x = os.path.join(args.real, "a100_transformer_with_stack.json.gz")
        y = os.path.join(args.real, "kineto2021_resnet50_string_tids.json.gz")
        if os.path.exists(x) and os.path.exists(y):
            x, y = tixtest.stage(x, args.work), tixtest.stage(y, args.work)
            check_exact(chk, "real", diff_json(args, chk, "real", x, y), x, y)
        # vLLM writes Input Dims over many lines: every format folds them to
        # one, as show does (issue 20 item 11)
        v = os.path.join(args.real, "vllm_b200_eager.json.gz")
        if os.path.exists(v):
            v = tixtest.stage(v, args.work)
            outs = {f: tixtest.tix(args, "diff", v, v, "--by", "shape", "--top", "0", "--format", f)
                    for f in ("text", "csv", "json")}
            d = json.loads(outs["json"][1]) if outs["json"][0] == 0 else {"rows": []}
            dims = [r["input_dims"] for r in d["rows"]]
            chk.check(dims and not any("\n" in x for x in dims) and "[[888, 2880], [888, 2880], [2880], []]" in dims,
                      "vLLM: --by shape folds multi-line Input Dims to one line (JSON)", repr(dims[:2]))
            chk.check(all(rc == 0 for rc, _, _ in outs.values()) and "\\x0a" not in outs["text"][1]
                      and "[[888, 2880]" in outs["text"][1],
                      "vLLM: --by shape text shows the Input Dims on one line, no \\x0a", outs["text"][1][:400])
            rows = outs["csv"][1].splitlines()
            chk.check(len(rows) == len(dims) + 1, "vLLM: --by shape CSV has one line a row",
                      "%d lines for %d rows" % (len(rows), len(dims)))
    else:
        print("skip  real pair: no folder %s" % args.real)

    # usage
    rc, out, err = tixtest.tix(args, "diff", a)
    chk.check(rc == 1 and "two traces" in err and err.count("\n") == 1, "usage: one trace -> exit 1, one line",
              "rc %d %r" % (rc, err))
    rc, out, err = tixtest.tix(args, "diff", a, b, "--step", 5)
    chk.check(rc == 2 and "no step 5" in err, "usage: --step beyond the traces -> exit 2", "rc %d %r" % (rc, err))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

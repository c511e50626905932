#!/usr/bin/env python3
"""Issue 18: `tix findings` and the op model of `summary --by op` against the
independent recount (tests/ref/recount_findings.py, docs/FINDINGS.md).

    findings_recount.py --tix TIX --work DIR [--traces DIR] [--real DIR] [--no-generated]

First the recount itself, on a hand-made trace whose answers are worked out
below (breakdown with overlapping compute, comm and a copy; gaps of each
cause; a sync-covered gap; a launch-bound stretch; op-shape groups under an
unmodelled op; the op model of each class): a failure there is exit 1.
Then, when `tix findings --help` fails, exit 77 ("tix has no findings
command yet").  Else, for every trace of --traces and --real (staged copies,
../shared is never written) and the generator's (default, --steps 3
--layers 4, --graph, --ranks 2 (each rank's file), a truncated one):

  tix findings T --format json --top 0           (and --step 0, --step last)
  tix summary T --by op --format json --top 0

against recount_findings.findings() and by_op_model(): `steps`, `step`,
every key of `breakdown`, of each `per_step` entry (by step and name), of
each `idle` row (by device, stream id and stream), of each `op_shapes` group
(by op, dims and types, as JSON values), and the op model keys of each
`summary --by op` row (by name): integers exactly, floats within 1e-9
relative, null as null.  The first differences of each trace are printed.
"""

import json
import os
import sys

import tixtest

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402  (the reference; shares no code with tix)
import recount_findings as rf  # noqa: E402
import recount_opmodel as om  # noqa: E402

SKIP = 77
REL = 1e-9
SHOW = 6


# ---------------------------------------------------------------------------
# comparing

def diffs(path, got, want, out):
    """Appends "path: got != want" for every difference of want's keys in got."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append("%s: %r, expected an object" % (path, short(got)))
            return
        for k, w in want.items():
            if k not in got:
                out.append("%s.%s: absent (expected %r)" % (path, k, short(w)))
            else:
                diffs("%s.%s" % (path, k), got[k], w, out)
        return
    num = (int, float)
    if (isinstance(want, float) or isinstance(got, float)) and isinstance(want, num) and \
            isinstance(got, num) and not isinstance(got, bool) and not isinstance(want, bool):
        if abs(got - want) > REL * max(abs(got), abs(want)):
            out.append("%s: %r != %r" % (path, got, want))
        return
    if got != want or type(got) is bool and type(want) is not bool:
        out.append("%s: %r != %r" % (path, short(got), short(want)))


def short(v, n=120):
    s = json.dumps(v) if not isinstance(v, str) else v
    return v if len(s) <= n else s[:n] + "..."


def keyed(rows, key, label, out):
    got = {}
    for r in rows:
        k = key(r)
        if k in got:
            out.append("%s: two rows %r" % (label, k))
        got[k] = r
    return got


def compare_rows(label, got_rows, want_rows, key, out):
    if not isinstance(got_rows, list):
        out.append("%s: %r, expected a list" % (label, short(got_rows)))
        return
    got = keyed(got_rows, key, label, out)
    want = keyed(want_rows, key, label + " (recount)", [])
    for k, w in want.items():
        if k not in got:
            out.append("%s %s: missing" % (label, short(list(k))))
        else:
            diffs("%s %s" % (label, short(list(k), 60)), got[k], w, out)
    for k in got:
        if k not in want:
            out.append("%s %s: not in the recount" % (label, short(list(k))))


def json_key(text):
    """dims / types as a JSON value, so that spacing does not tell groups apart."""
    try:
        return json.dumps(json.loads(text))
    except (TypeError, ValueError):
        return text


def step_key(r):
    return (r.get("step"), r.get("name"))


def stream_key(r):
    return (r.get("device"), r.get("stream_id"), r.get("stream") if r.get("stream_id") is None else None)


def shape_key(r):
    return (r.get("op"), json_key(r.get("dims")), json_key(r.get("types")),
            json_key(r.get("concrete")))


def compare_findings(got, want):
    out = []
    for k in ("steps", "step"):
        diffs(k, got.get(k, "absent"), want[k], out)
    diffs("breakdown", got.get("breakdown"), want["breakdown"], out)
    if "per_step" in want:
        compare_rows("per_step", got.get("per_step"), want["per_step"], step_key, out)
    elif "per_step" in got:
        out.append("per_step: present with --step")
    compare_rows("idle", got.get("idle"), want["idle"], stream_key, out)
    compare_rows("op_shapes", got.get("op_shapes"), want["op_shapes"], shape_key, out)
    return out


def compare_ops(got, want):
    out = []
    rows = got.get("ops") if isinstance(got, dict) else None
    if not isinstance(rows, list):
        return ["ops: %r" % short(got)]
    by = keyed(rows, lambda r: r.get("name"), "ops", out)
    for w in want["ops"]:
        g = by.get(w["name"])
        if g is None:
            out.append("ops %s: missing" % w["name"][:60])
            continue
        diffs("ops %s" % w["name"][:60], g, {k: w[k] for k in rf.MODEL_KEYS}, out)
    return out


# ---------------------------------------------------------------------------
# the recount against answers worked out by hand

US = 1000   # ns


def X(name, ts, dur, cat="cpu_op", pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def gpu(name, ts, dur, corr, stream, cat="kernel"):
    return X(name, ts, dur, cat=cat, pid=0, tid=stream, correlation=corr, device=0, stream=stream)


def launch(ts, dur, corr, name="cudaLaunchKernel"):
    return X(name, ts, dur, cat="cuda_runtime", correlation=corr)


def op(name, ts, dur, dims, types, concrete=None):
    a = {"Input Dims": dims, "Input type": types}
    if concrete is not None:
        a["Concrete Inputs"] = concrete
    return X(name, ts, dur, **a)


NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"
CAST_DIMS, CAST_TYPES = [[10, 20], [10, 20]], ["c10::BFloat16", "c10::Float8_e4m3fn"]


def hand_trace():
    """Step 0 [0, 300) us: K1 [10,20) under linear > mm; K2 [25,35) and K3
    [200,210) under aten::to > copy_ (one cast shape); comm C1 [30,60) on
    stream 20; memcpy M1 [55,70); K4 [300,310) launched at 205; a
    cudaStreamSynchronize [60,149) on the launching thread.  Step 1 [300,
    600): eight kernels of 2 us on stream 30 launched by 5 us calls, each call
    after the previous kernel ended (a launch-bound stretch), then one 10 us
    kernel (not launch-bound)."""
    ev = [X("ProfilerStep#1", 0, 300, cat="user_annotation"),
          X("ProfilerStep#2", 300, 300, cat="user_annotation"),
          op("aten::linear", 4, 4, [[4, 8], [16, 8], []], ["float", "float", ""]),
          op("aten::mm", 4.5, 3, [[4, 8], [8, 16]], ["float", "float"]),
          launch(5, 2, 1), gpu("k_mm", 10, 10, 1, 7),
          op("aten::to", 11, 3.5, [[10, 20], [], [], [], [], []], ["c10::BFloat16"] + [""] * 5),
          op("aten::copy_", 11.5, 2.7, CAST_DIMS, CAST_TYPES),
          launch(12, 2, 2), gpu("cast", 25, 10, 2, 7),
          launch(15, 1, 3), gpu(NCCL, 30, 30, 3, 20),
          launch(50, 1, 4, "cudaMemcpyAsync"),
          gpu("Memcpy DtoD (Device -> Device)", 55, 15, 4, 7, cat="gpu_memcpy"),
          X("cudaStreamSynchronize", 60, 89, cat="cuda_runtime"),
          op("aten::to", 149.5, 3.5, [[10, 20], [], [], [], [], []], ["c10::BFloat16"] + [""] * 5),
          op("aten::copy_", 149.8, 2.7, CAST_DIMS, CAST_TYPES),
          launch(150, 2, 5), gpu("cast", 200, 10, 5, 7),
          launch(205, 2, 6), gpu("k4", 300, 10, 6, 7)]
    for i in range(8):
        ev += [launch(400 + 10 * i, 5, 10 + i), gpu("tiny", 406 + 10 * i, 2, 10 + i, 30)]
    ev += [launch(480, 5, 30), gpu("long", 486, 10, 30, 30)]
    return {"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]}


def bd(wall, span, busy, compute, comm, memory, overlap, host, kernel, other, sync, lb_idle, lb_k, gpu_ns):
    v = dict(wall_ns=wall, span_ns=span, busy_ns=busy, compute_ns=compute, comm_ns=comm,
             memory_ns=memory, idle_ns=span - busy, overlap_ns=overlap, idle_host_ns=host,
             idle_kernel_ns=kernel, idle_other_ns=other, idle_sync_ns=sync,
             launch_bound_idle_ns=lb_idle, launch_bound_kernels=lb_k, gpu_ns=gpu_ns)
    return {k: (x * US if isinstance(x, int) and k not in ("launch_bound_kernels",) else x)
            for k, x in v.items()}


def idle_row(sid, gaps, host, kernel, other):
    return {"stream": "stream %d" % sid, "device": 0, "stream_id": sid, "gaps": gaps,
            "host_wait_ns": host * US, "kernel_wait_ns": kernel * US, "other_ns": other * US}


# worked out by hand from hand_trace() and docs/FINDINGS.md
STEP0 = bd(300, 300, 75, 40, 25, 10, 5, 130, 5, 90, 130, 0, 0, 85)
STEP1 = bd(300, 90, 26, 26, 0, 0, 0, 64, 0, 0, 0, 56, 8, 26)
TRACE = bd(None, 486, 101, 66, 25, 10, 5, 290, 5, 90, 130, 56, 8, 111)
IDLE = [idle_row(7, 4, 150, 5, 90), idle_row(20, 0, 0, 0, 0), idle_row(30, 8, 64, 0, 0)]
CAST = {"op": "aten::copy_", "dims": json.dumps(CAST_DIMS), "types": json.dumps(CAST_TYPES),
        "concrete": None, "class": "copy", "calls": 2, "calls_per_step": 1.0, "gpu_events": 2, "gpu_ns": 20 * US,
        "flops": None, "bytes": 600, "kernels": ["cast"]}
MM = {"op": "aten::mm", "dims": "[[4, 8], [8, 16]]", "types": '["float", "float"]', "concrete": None,
      "class": "gemm",
      "calls": 1, "calls_per_step": 0.5, "gpu_events": 1, "gpu_ns": 10 * US, "flops": 1024,
      "bytes": 896, "kernels": ["k_mm"]}
OPS = {"aten::linear": (1, 10 * US, 1024, 896, 1024 / 1e-5, 896 / 1e-5),
       "aten::mm": (1, 10 * US, 1024, 896, 1024 / 1e-5, 896 / 1e-5),
       "aten::copy_": (2, 20 * US, None, 1200, None, 1200 / 2e-5),
       "aten::to": (None,) * 6}

F, BF, F8, FP4 = "float", "c10::BFloat16", "c10::Float8_e4m3fn", "c10::Float4_e2m1fn_x2"
# (op, Input Dims, Input type, Concrete Inputs, (class, flops, bytes) or None)
MODELS = [
    ("aten::mm", [[4, 8], [8, 16]], [F, F], None, ("gemm", 1024, 896)),
    ("aten::addmm", [[16], [4, 8], [8, 16], [], []], [BF, BF, BF, "Scalar", "Scalar"], None, ("gemm", 1088, 480)),
    ("aten::bmm", [[2, 4, 8], [2, 8, 16]], [BF, BF], None, ("gemm", 2048, 896)),
    ("aten::baddbmm", [[2, 4, 16], [2, 4, 8], [2, 8, 16]], [F, F, F], None, ("gemm", 2 * 1088, 2 * 240 * 4)),
    ("aten::_scaled_mm", [[4, 8], [8, 16], [], []], [F8, F8, F, F], None, ("gemm", 1024, 32 + 128 + 128)),
    ("aten::linear", [[2, 3, 8], [16, 8], [16]], [F, F, F], None, ("gemm", 1632, 1152)),
    ("aten::matmul", [[3, 4, 8], [8, 16]], [F, F], None, ("gemm", 3 * 1024, 3 * 224 * 4)),
    ("aten::mm", [[4, 8], [7, 16]], [F, F], None, None),
    ("aten::mm", [[4, 8], [8, 16]], ["long", "long"], None, ("gemm", 1024, 1792)),   # long: 8 bytes
    ("aten::mm", [[4, 8], [8, 16]], ["c10::Weird", "c10::Weird"], None, ("gemm", 1024, None)),
    ("aten::_scaled_dot_product_flash_attention", [[1, 2, 4, 8]] * 3 + [[]] * 4, [BF] * 3 + ["Scalar"] * 4,
     ["", "", "", "0.", "True", "False", ""], ("attention", 640, 512)),
    ("aten::_scaled_dot_product_flash_attention", [[1, 2, 4, 8]] * 3 + [[]] * 4, [BF] * 3 + ["Scalar"] * 4,
     ["", "", "", "0.", "False", "False", ""], ("attention", 1024, 512)),
    ("aten::scaled_dot_product_attention", [[1, 2, 2, 8], [1, 2, 4, 8], [1, 2, 4, 8], [], [], [], [], []],
     [BF] * 3 + ["", "Scalar", "Scalar", "Scalar", "Scalar"], ["", "", "", "", "0.", "True", "", "False"],
     ("attention", 2 * 2 * 3 * 16, (32 + 128 + 32) * 2)),
    ("aten::_scaled_dot_product_flash_attention", [[1, 2, 4, 8]] * 3, [BF] * 3, None, None),
    ("aten::convolution", [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], [], [], []],
     [F, F, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
     ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"], ("convolution", 13824, 2224)),
    ("aten::copy_", CAST_DIMS + [[]], CAST_TYPES + ["Scalar"], None, ("copy", None, 600)),
    ("aten::add", [[4, 1], [1, 5], []], [F, BF, "Scalar"], None, ("elementwise", 20, 106)),
    ("aten::sum", [[4, 6], [], [], []], [F, "ScalarList", "Scalar", ""], ["", "[1]", "False", ""],
     ("reduction", 24, 112)),
    ("aten::softmax", [[4, 6], [], []], [F, "Scalar", ""], None, ("reduction", 24, 192)),
    ("aten::layer_norm", [[4, 6], [], [6], [6], [], []], [F, "", F, F, "Scalar", "Scalar"], None,
     ("norm", 120, 240)),
    ("aten::_scaled_mm", [[4, 4], [4, 16], [], []], [FP4, FP4, F, F], None, ("gemm", 1024, 16 + 64 + 128)),
    ("aten::abs", [[3, 4], [0]], [F, F], None, ("elementwise", 12, 96)),
    ("aten::where", [[3, 1], [3, 4], []], ["bool", BF, BF], None, ("elementwise", 12, 3 + 24 + 2 + 24)),
    ("aten::linalg_vector_norm", [[4, 6], [], [], [], []], [F, "Scalar", "ScalarList", "Scalar", ""],
     ["", "2", "[0]", "False", ""], ("reduction", 24, (24 + 6) * 4)),
    ("aten::to", [[4, 6]], [F], None, None),
]


def check_recount_by_hand(chk, work):
    path = os.path.join(work, "hand.json")
    with open(path, "w") as f:
        json.dump(hand_trace(), f)
    tr = recount.load_trace(path)
    r = rf.findings(tr)
    chk.eq(r["breakdown"], TRACE, "hand: the trace's breakdown")
    chk.eq([s["name"] for s in r["per_step"]], ["ProfilerStep#1", "ProfilerStep#2"], "hand: per_step names")
    if len(r["per_step"]) == 2:
        chk.eq({k: v for k, v in r["per_step"][0].items() if k not in ("step", "name")}, STEP0,
               "hand: step 0 (overlap, exposed comm and copy, host / kernel / other, sync-covered)")
        chk.eq({k: v for k, v in r["per_step"][1].items() if k not in ("step", "name")}, STEP1,
               "hand: step 1 (a launch-bound stretch of 8)")
    chk.eq(r["idle"], IDLE, "hand: idle per stream")
    chk.eq(r["op_shapes"], [CAST, MM], "hand: op-shape groups (the innermost modelled op)")
    r1 = rf.findings(tr, 1)
    chk.eq((r1["breakdown"], r1["idle"]), (STEP1, [IDLE[2]]), "hand: --step 1")
    got = {o["name"]: tuple(o[k] for k in rf.MODEL_KEYS) for o in rf.by_op_model(tr)["ops"]}
    chk.eq(got, OPS, "hand: --by op --model")
    for name, dims, types, ci, want in MODELS:
        args = {"Input Dims": dims, "Input type": types}
        if ci is not None:
            args["Concrete Inputs"] = ci
        m = om.model(name, args)
        chk.eq(m and (m["class"], m["flops"], m["bytes"]), want, "hand: model of %s %s %s%s" % (
            name, dims, types, " concrete %s" % ci if ci else ""))


# ---------------------------------------------------------------------------
# tix against the recount

def tix_json(args, chk, label, *argv):
    rc, out, err = tixtest.tix(args, *argv, timeout=600)
    if not chk.check(rc == 0, "%s: tix %s exits 0" % (label, " ".join(str(a) for a in argv[:1] + argv[2:])),
                     "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300])):
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        chk.check(False, "%s: tix %s prints JSON" % (label, argv[0]), "%s: %r" % (e, out[:200]))
        return None


def report(chk, what, out):
    chk.check(not out, what, "; ".join(out[:SHOW]) + (" (+%d more)" % (len(out) - SHOW) if len(out) > SHOW else ""))


def check_trace(args, chk, path, label):
    try:
        tr = recount.load_trace(path, partial=True)
    except (OSError, ValueError, EOFError) as e:
        chk.check(False, "%s: the recount reads it" % label, str(e))
        return
    steps = [None, 0] + ([len(tr.steps) - 1] if len(tr.steps) > 1 else [])
    fs = rf.Findings(tr)
    for step in steps:
        argv = ["findings", path, "--format", "json", "--top", "0"]
        what = label
        if step is not None:
            argv += ["--step", step]
            what += " --step %d" % step
        got = tix_json(args, chk, what, *argv)
        if got is not None:
            report(chk, "%s: findings agree with the recount" % what, compare_findings(got, fs.report(step)))
    got = tix_json(args, chk, label, "summary", path, "--by", "op", "--format", "json", "--top", "0")
    if got is not None:
        report(chk, "%s: summary --by op model columns agree with the recount" % label,
               compare_ops(got, rf.by_op_model(tr)))


def corpus(folder):
    if not folder or not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.endswith(".json") or f.endswith(".json.gz"))


def generated(work):
    d = os.path.join(work, "gen")
    os.makedirs(d, exist_ok=True)
    out = [(tixtest.generate(os.path.join(d, "default.json")), "gen default"),
           (tixtest.generate(os.path.join(d, "s3l4.json"), "--steps", 3, "--layers", 4), "gen --steps 3 --layers 4"),
           (tixtest.generate(os.path.join(d, "graph.json"), "--graph"), "gen --graph")]
    truth = os.path.join(d, "ranks.truth.json")
    tixtest.generate(os.path.join(d, "ranks.json"), "--ranks", 2, "--slow-rank", 1, "--steps", 3, "--layers", 4,
                     truth=truth)
    with open(truth) as f:
        files = json.load(f)["files"]
    out += [(p if os.path.isabs(p) else os.path.join(d, p), "gen --ranks 2: %s" % os.path.basename(p))
            for p in files]
    out.append((tixtest.generate(os.path.join(d, "cut.json"), "--steps", 3, "--layers", 4, "--truncate-at", 0.7),
                "gen truncated at 70%"))
    return out


def main():
    p = tixtest.arg_parser(__doc__)
    shared = tixtest.shared_corpus()
    p.add_argument("--traces", default=os.path.join(shared, "traces"))
    p.add_argument("--real", default=os.path.join(shared, "traces", "real"))
    p.add_argument("--no-generated", action="store_true", help="only the corpus traces")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("findings_recount")
    check_recount_by_hand(chk, args.work)
    if chk.failed:
        return chk.done()
    rc, out, err = tixtest.run([args.tix, "findings", "--help"])
    if rc != 0:
        print("skip  tix has no findings command yet (tix findings --help: rc %d %s)" % (rc, err.strip()[:120]))
        chk.done()
        return SKIP
    traces = [(tixtest.stage(f, args.work), "traces/" + os.path.basename(f)) for f in corpus(args.traces)]
    traces += [(tixtest.stage(f, args.work), "real/" + os.path.basename(f)) for f in corpus(args.real)]
    if not traces:
        chk.skip("the shared corpus", "no traces in %s or %s" % (args.traces, args.real))
    if not args.no_generated:
        traces += generated(args.work)
    for path, label in traces:
        check_trace(args, chk, path, label)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

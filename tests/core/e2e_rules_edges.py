#!/usr/bin/env python3
"""Issue 8: the edges of the rules, on small hand-made traces.

    e2e_rules_edges.py --tix TIX --work DIR

Each trace is written here with the answer the rules give worked out by
hand; the recount (tests/ref/recount.py) must give that answer (this keeps
the reference honest), then tix is compared with the recount by everything
e2e_real.py checks (summary, show, warnings, export).

  containment   a child overrunning its parent by 0.999 us is inside, by
                1.001 us outside; one starting where its parent ended is a
                sibling; equal intervals: the first in input order holds the
                second; a step marker that starts inside a python frame and
                outlives it; B/E pairs; a zero-length event holds nothing
  processes     one correlation id in two processes: the launch that
                precedes the GPU event most closely, else the earliest
  before        GPU work without a launch: below the smallest correlation,
                or before the first CPU event, is before the trace; above it
                and inside the window it is in its step
  vllm / sglang the step markers of both vLLM forms (execute_model around
                them is an op, not a step) and SGLang's step[IDLE]; a marker
                starting inside the previous kept one is skipped
  marker_op     a step marker whose name an op inside it also has (vLLM's
                nested execute_model): the marker is no op, so the GPU work
                launched under it only counts for the inner one's name
                when it is under the inner one
  traffic       aten::copy_ of one kernel (bytes from its two inputs),
                copy_ of two kernels (none), a copy faster than the device's
                peak (no bandwidth, over_peak), a memset's bytes, another op
  names         a mangled name (demangled, mangled_name kept); two names that
                differ only in a template argument keep distinct short names
"""

import json
import os
import sys

import tixtest
from e2e_real import one_trace

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402

P, T = 1, 1          # the CPU thread
DEV = [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]


def X(name, ts, dur, cat="cpu_op", pid=P, tid=T, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def launch(ts, dur, corr, pid=P, tid=T, name="cudaLaunchKernel"):
    return X(name, ts, dur, cat="cuda_runtime", pid=pid, tid=tid, correlation=corr)


def kernel(name, ts, dur, corr=None, device=0, **args):
    a = dict(args, device=device, stream=7)
    if corr is not None:
        a["correlation"] = corr
    return X(name, ts, dur, cat="kernel", pid=device, tid=7, **a)


def write(path, events, top=None):
    doc = dict(top or {}, traceEvents=events)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path


def containment():
    ev = [X("outer", 100, 100), launch(150, 50.999, 10),            # overruns by 0.999 us: inside
          X("sib", 300, 10), launch(305, 5.9, 11),                    # 0.9 us: inside
          X("over", 400, 10), launch(405, 6.001, 12),                 # 1.001 us: outside
          X("ended", 500, 10), launch(510, 0.5, 13),                  # starts where it ended: sibling
          X("A1", 600, 20, cat="user_annotation"), X("A2", 600, 20), launch(605, 2, 14),
          X("frame", 700, 20, cat="python_function"), X("Step", 710, 100, cat="user_annotation"),
          launch(750, 3, 15),                                         # frame ended: Step only
          {"ph": "B", "name": "be", "pid": P, "tid": T, "ts": 900}, launch(910, 2, 16),
          {"ph": "E", "pid": P, "tid": T, "ts": 950},
          X("z", 1000, 0), launch(1000, 0.5, 17)]                     # zero length: holds nothing
    ev += [kernel("k%d" % c, 2000 + 10 * c, 5, c) for c in range(10, 18)]
    want = {"k10": ["outer"], "k11": ["sib"], "k12": [], "k13": [], "k14": ["A1", "A2"],
            "k15": ["Step"], "k16": ["be"], "k17": []}
    return ev, None, want


def processes():
    ev = [launch(100, 5, 5, pid=11, tid=11), launch(200, 5, 5, pid=12, tid=12), launch(300, 5, 6, pid=12, tid=12),
          kernel("after_p1", 150, 5, 5), kernel("after_p2", 250, 5, 5, device=1),
          kernel("before_both", 50, 5, 5), kernel("p2_only", 310, 5, 6, device=1)]
    want = {"after_p1": 11, "after_p2": 12, "before_both": 11, "p2_only": 12}
    return ev, None, want


def before():
    ev = [X("ProfilerStep#1", 1000, 2000, cat="user_annotation"), X("aten::mm", 1100, 50),
          launch(1110, 5, 100), launch(1200, 5, 101),
          kernel("launched", 1300, 10, 100), kernel("launched2", 1400, 10, 101),
          kernel("below_min_corr", 2000, 10, 50),       # before the trace: correlation 50 < 100
          kernel("before_window", 500, 10),             # before the trace: starts before any CPU event
          kernel("lost_launch", 1500, 10, 500)]         # no launch, not before: in step 0 by its start
    want = {"before": {"below_min_corr", "before_window"}, "step0": {"launched", "launched2", "lost_launch"}}
    return ev, None, want


def vllm():
    a = "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)"
    b = "execute_context_1(888_788544)_generation_0(0)"
    ev = [X("execute_model", 0, 200, cat="user_annotation"), X(a, 10, 50, cat="user_annotation"),
          X(b, 100, 80, cat="user_annotation"), X("execute_context_2_generation_1", 120, 10,
                                                  cat="user_annotation"),   # inside b: skipped
          launch(20, 5, 1), launch(110, 5, 2), kernel("ka", 30, 5, 1), kernel("kb", 120, 5, 2)]
    want = [a, b]
    return ev, None, want


def marker_op():
    ev = [X("execute_model", 0, 200, cat="user_annotation"),        # the kept marker
          X("aten::mm", 10, 30), launch(20, 5, 1),                 # under the marker and aten::mm
          X("execute_model", 100, 80, cat="user_annotation"),      # nested: an op, not a step
          launch(110, 5, 2), kernel("ka", 30, 5, 1), kernel("kb", 120, 5, 2)]
    want = {"execute_model": (1, 1), "aten::mm": (1, 1)}          # (gpu_events, calls)
    return ev, None, want


def sglang():
    ev = [X("step[IDLE]", 0, 50, cat="user_annotation"), X("step[DECODE bs=4]", 100, 50, cat="user_annotation"),
          X("step[EXTENDED]", 200, 10, cat="user_annotation"),              # not SGLang's: no marker
          launch(110, 5, 1), kernel("k", 120, 5, 1)]
    want = ["step[IDLE]", "step[DECODE bs=4]"]
    return ev, None, want


def traffic():
    n = 1024 * 1024
    ev = [X("aten::copy_", 100, 20, **{"Input Dims": [[1024, 1024], [1024, 1024], []],
                                       "Input type": ["c10::BFloat16", "c10::Float8_e4m3fn", "Scalar"]}),
          launch(105, 5, 1), kernel("one_copy", 200, 10, 1),                   # 3 MiB in 10 us
          X("aten::copy_", 300, 20, **{"Input Dims": [[64], [64]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}),
          launch(305, 3, 2), launch(310, 3, 3), kernel("two_a", 400, 2, 2), kernel("two_b", 410, 2, 3),
          X("aten::copy_", 500, 20, **{"Input Dims": [[100000000], [100000000]],
                                       "Input type": ["c10::BFloat16", "c10::BFloat16"]}),
          launch(505, 5, 4), kernel("too_fast", 600, 1, 4),                   # 400 MB in 1 us: above peak
          X("aten::add", 700, 20, **{"Input Dims": [[n], [n]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}),
          launch(705, 5, 5), kernel("not_a_copy", 800, 10, 5),
          X("aten::zero_", 900, 20), X("cudaMemsetAsync", 905, 5, cat="cuda_runtime", correlation=6),
          X("Memset (Device)", 1000, 1, cat="gpu_memset", pid=0, tid=7, device=0, stream=7, correlation=6,
            bytes=4096)]
    want = {"one_copy": (3 * n, "aten::copy_", 3 * n / 10e-6, False), "two_a": (None, None, None, False),
            "two_b": (None, None, None, False), "too_fast": (4 * 10 ** 8, "aten::copy_", None, True),
            "not_a_copy": (None, None, None, False), "Memset (Device)": (4096, "bytes", 4096 / 1e-6, False)}
    return ev, {"deviceProperties": DEV}, want


MANGLED = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIlEESt5arrayIPcLm1EEEEviT0_T1_"


def names():
    a = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> >" \
        "(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)"
    ev = [launch(100, 5, 1), launch(110, 5, 2), kernel(MANGLED, 200, 5, 1), kernel(a, 210, 5, 2)]
    return ev, None, None


def check_recount(chk, label, path, want):
    tr = recount.load_trace(path)
    rl = recount.launches(tr)["launches"]
    by = {x["name"]: x for x in rl}
    if label == "containment":
        got = {n: [p["name"] for p in by[n]["parents"]] for n in want}
        chk.eq(got, want, "%s: recount: ancestors by containment (hand-worked)" % label)
    elif label == "processes":
        chk.eq({n: by[n]["launch"]["pid"] for n in want}, want, "%s: recount: launch per process" % label)
        chk.eq(recount.warnings(tr)["colliding_ids"], 1, "%s: recount: one colliding id" % label)
    elif label == "before":
        chk.eq({x["name"] for x in rl if x["before_trace"]}, want["before"], "%s: recount: before the trace" % label)
        chk.eq({x["name"] for x in rl if x["step"] == 0}, want["step0"], "%s: recount: step 0" % label)
    elif label in ("vllm", "sglang"):
        chk.eq([s["name"] for s in recount.by_step(tr)["steps"]], want, "%s: recount: the step markers" % label)
        if label == "vllm":
            chk.check(any(o["name"] == "execute_model" for o in recount.by_op(tr)["ops"]),
                      "%s: recount: execute_model is an op around the steps" % label)
    elif label == "marker_op":
        chk.eq([s["name"] for s in recount.by_step(tr)["steps"]], ["execute_model"],
               "%s: recount: the outer execute_model is the one step" % label)
        chk.eq({o["name"]: (o["gpu_events"], o["calls"]) for o in recount.by_op(tr)["ops"]}, want,
               "%s: recount: the marker is no op (hand-worked)" % label)
    elif label == "traffic":
        got = {n: (by[n]["traffic"]["bytes"], by[n]["traffic"]["basis"],
                   by[n]["traffic"]["bandwidth_Bps"], by[n]["traffic"]["over_peak"]) for n in want}
        ok = all(got[n][:2] == want[n][:2] and got[n][3] == want[n][3] and
                 (got[n][2] is None) == (want[n][2] is None) and
                 (want[n][2] is None or abs(got[n][2] - want[n][2]) <= 1e-6 * want[n][2]) for n in want)
        chk.check(ok, "%s: recount: bytes, basis, bandwidth, over_peak (hand-worked)" % label,
                  "got %s want %s" % (got, want))
        chk.eq({by[n]["traffic"]["peak_Bps"] for n in want}, {3.35e12}, "%s: recount: H100 peak" % label)
    elif label == "names":
        if recount.demangler_available():
            x = [x for x in rl if x["mangled_name"] == MANGLED]
            chk.check(x and not x[0]["name"].startswith("_Z"), "%s: recount: demangled by c++filt" % label)
        else:
            chk.skip("%s: demangling" % label, "c++filt is not installed")


def main():
    args = tixtest.setup(tixtest.arg_parser(__doc__).parse_args())
    chk = tixtest.Checker("e2e_rules_edges")
    for label, make in (("containment", containment), ("processes", processes), ("before", before),
                        ("vllm", vllm), ("marker_op", marker_op), ("sglang", sglang), ("traffic", traffic), ("names", names)):
        ev, top, want = make()
        path = write(os.path.join(args.work, label + ".json"), ev, top)
        check_recount(chk, label, path, want)
        one_trace(args, chk, path, label)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Export round trip: `tix export` (all, --step, --kernel, --range) writes
valid Chrome-trace JSON (python json.load, traceEvents, metadata, ac2g
flows); re-indexing the export with tix gives back exactly the selected GPU
events (kind, name, start, duration, grid, block, registers, shared memory,
stream, bytes), each with the same launch call and the same parent chain
(names, kinds, Input Dims/types).

    e2e_export.py --tix TIX --work DIR [--traces DIR]
"""

import json
import os
import re
import sys

import tixtest

GEN_OPTS = ["--steps", 3, "--layers", 4, "--python-frames"]


def show_all(args, chk, trace, label, *sel):
    rc, out, err = tixtest.tix(args, "show", trace, "--kernel", "", "--limit", 0, "--format", "json", *sel)
    if not chk.check(rc == 0, "%s: show --kernel '' --limit 0 %s exits 0" % (label, " ".join(map(str, sel))),
                     "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300])):
        return None
    try:
        return json.loads(out)["launches"]
    except ValueError as e:
        chk.check(False, "%s: show output is JSON" % label, str(e))
        return None


def key_of(l):
    return (l["kind"], l["name"], l["start_ns"], l["dur_ns"])


def facts_of(l):
    """What must survive the round trip for one GPU event."""
    ln = l.get("launch")
    return {
        "grid": l.get("grid"), "block": l.get("block"), "registers": l.get("registers"),
        "shared_mem": l.get("shared_mem"), "stream": l.get("stream"), "bytes": l.get("bytes"),
        "launch": None if not ln else (ln["name"], ln["start_ns"], ln["dur_ns"], ln["pid"], ln["tid"]),
        "parents": [(p["name"], p["kind"], json.dumps(p.get("input_dims")), json.dumps(p.get("input_types")))
                    for p in l.get("parents", [])],
    }


def export_and_check(args, chk, trace, label, sel, expected):
    """Exports trace with sel, checks the JSON and that re-indexing gives
    back exactly `expected` (a list of show launches of the original)."""
    what = "%s: export %s" % (label, " ".join(map(str, sel)) or "(all)")
    out = os.path.join(args.work, re.sub(r"[^A-Za-z0-9]+", "_", what) + ".json")
    if os.path.exists(out):
        os.unlink(out)
    rc, o, err = tixtest.tix(args, "export", trace, *sel, "-o", out)
    if not chk.check(rc == 0, "%s exits 0" % what, "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300])):
        return
    m = re.search(r"wrote ([\d,]+) traceEvents", o)
    try:
        with open(out, "rb") as f:
            doc = json.load(f)
    except ValueError as e:
        chk.check(False, "%s: valid JSON (python json.load)" % what, str(e))
        return
    evs = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not chk.check(isinstance(evs, list), "%s: valid JSON with a traceEvents array" % what):
        return
    chk.check(m and int(m.group(1).replace(",", "")) == len(evs), "%s: reports the traceEvents it wrote (flows and "
              "metadata too)" % what, "%s; the file has %d" % (o.strip(), len(evs)))
    pids = {str(e.get("pid")) for e in evs if e.get("ph") != "M"}
    named = {str(e.get("pid")) for e in evs if e.get("ph") == "M" and e.get("name") == "process_name"}
    tracks = {(str(e.get("pid")), str(e.get("tid"))) for e in evs if e.get("ph") == "X"}
    threads = {(str(e.get("pid")), str(e.get("tid"))) for e in evs
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    chk.check(pids <= named and tracks <= threads,
              "%s: process_name and thread_name for every process and thread written" % what,
              "unnamed processes %s, threads %s" % (sorted(pids - named)[:3], sorted(tracks - threads)[:3]))
    gpu = [e for e in evs if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")]
    chk.eq(len(gpu), len(expected), "%s: %d GPU events written" % (what, len(expected)))
    if expected:
        chk.check(any(e.get("ph") == "M" and e.get("name") in ("process_name", "thread_name") for e in evs),
                  "%s: process/thread metadata kept" % what)
        launched = [x for x in expected if x.get("launch")]
        nlaunch = len({x["launch"] for x in map(facts_of, launched)})
        runtime = [e for e in evs if e.get("ph") == "X" and str(e.get("cat", "")).lower() in
                   ("cuda_runtime", "cuda_driver", "runtime")]
        chk.check(len(runtime) >= nlaunch, "%s: the %d launch calls are written" % (what, nlaunch),
                  "%d runtime events" % len(runtime))
        for e in evs:
            if e.get("ph") == "X" and not isinstance(e.get("args", {}), dict):
                chk.check(False, "%s: args are objects" % what)
                break
    back = show_all(args, chk, out, what + " -> reindex")
    if back is None:
        return
    want = {key_of(l): facts_of(l) for l in expected}
    got = {key_of(l): facts_of(l) for l in back}
    missing = [k for k in want if k not in got]
    extra = [k for k in got if k not in want]
    chk.check(not missing and not extra, "%s: same GPU events back (kind, name, start, dur)" % what,
              "missing %d e.g. %s; extra %d e.g. %s" % (len(missing), missing[:2], len(extra), extra[:2]))
    bad = []
    for k in want:
        if k in got and got[k] != want[k]:
            diff = {f: (got[k][f], want[k][f]) for f in want[k] if got[k][f] != want[k][f]}
            bad.append("%s@%d: %s" % (k[1][:40], k[2], str(diff)[:300]))
    chk.check(not bad, "%s: same grid/block/stream, launch calls and parent chains" % what,
              "%d differ; %s" % (len(bad), "; ".join(bad[:3])))
    return back


def round_trips(args, chk, trace, label, kernel_re):
    orig = show_all(args, chk, trace, label)
    if orig is None:
        return
    chk.check(len(orig) > 0, "%s: has GPU events" % label)
    export_and_check(args, chk, trace, label, [], orig)
    # the whole export re-opens with the same steps and counts: GPU work
    # launched before the trace stays before it (issue 20 item 11)
    whole = os.path.join(args.work, re.sub(r"[^A-Za-z0-9]+", "_", "%s: export (all)" % label) + ".json")
    steps = []
    for t in (trace, whole):
        rc, out, err = tixtest.tix(args, "summary", t, "--by", "step", "--format", "json")
        d = json.loads(out) if rc == 0 else {}
        bt = d.get("before_trace")
        steps.append([(s["name"], s["gpu_events"], s["kernels"]) for s in d.get("steps", [])] +
                     [("before", bt["gpu_events"]) if bt else ("before", None)])
    chk.eq(steps[1], steps[0], "%s: the export re-opens with the same steps and GPU events per step" % label)
    rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json")
    steps = json.loads(out)["steps"] if rc == 0 else []
    n = min(1, len(steps) - 1)
    if steps:
        sel = show_all(args, chk, trace, label, "--step", n)
        if sel is not None:
            chk.check(all(l["step"] == n for l in sel), "%s: show --step %d gives step %d events" % (label, n, n))
            export_and_check(args, chk, trace, label, ["--step", n], sel)
    rx = re.compile(kernel_re)
    export_and_check(args, chk, trace, label, ["--kernel", kernel_re], [l for l in orig if rx.search(l["name"])])
    # a window in the middle: GPU events overlapping [t0, t1) from the trace start
    offs = sorted(l["offset_ns"] for l in orig)
    if len(offs) >= 4:
        t0, t1 = offs[len(offs) // 4] + 1, offs[len(offs) // 2] + 1
        sel = [l for l in orig if l["offset_ns"] < t1 and l["offset_ns"] + l["dur_ns"] > t0]
        export_and_check(args, chk, trace, label, ["--range", "%dns:%dns" % (t0, t1)], sel)
    # a selection with nothing in it still writes valid JSON
    export_and_check(args, chk, trace, label, ["--kernel", "^no_such_kernel_xyz$"], [])


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--traces", help="folder of real traces (TIX_TRACES_DIR)")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_export")
    gen = tixtest.generate(os.path.join(args.work, "export-gen.json"), *GEN_OPTS)
    round_trips(args, chk, gen, "generated", "unrolled|nccl")
    pre = tixtest.generate(os.path.join(args.work, "export-pre.json"), "--steps", "3", "--layers", "4",
                           "--pre-window", "6")
    round_trips(args, chk, pre, "generated, work before the trace", "unrolled|nccl")
    if args.traces:
        for name, rx in (("v100_8gpu_train.pt.trace.json.gz", "elementwise"),
                         ("mi250_rocm_train.json.gz", "Cijk"),
                         ("triton_inductor.json.gz", "triton"),
                         ("sampled_train_rank1.json.gz", "nccl|Memcpy"),
                         # 968 GPU events launched before the trace (real/README.md)
                         (os.path.join("real", "rocm_mi300_resnet_ddp.json.gz"), "Cijk|nccl")):
            path = os.path.join(args.traces, name)
            if os.path.exists(path):
                path = tixtest.stage(path, args.work)
                round_trips(args, chk, path, name, rx)
            else:
                chk.skip(name, "not in %s" % args.traces)
    # export refuses a bad output folder with one line, exit 2
    rc, out, err = tixtest.tix(args, "export", gen, "-o", "/nonexistent-dir/out.json")
    chk.check(rc == 2 and len(err.strip().split("\n")) == 1 and "/nonexistent-dir" in err,
              "export into a missing folder: exit 2, one line naming it", "rc %d: %s" % (rc, err.strip()))
    for bad in (["--range", "5"], ["--range", "9:3"], ["--range", "a:b"], ["--kernel", "("]):
        rc, out, err = tixtest.tix(args, "export", gen, *bad, "-o", os.path.join(args.work, "x.json"))
        chk.check(rc == 1 and err.strip(), "export %s: usage error" % " ".join(bad), "rc %d: %s" % (rc, err.strip()))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Issue 18: the findings a user reads, on the story and on the real traces.

    findings_golden.py --tix TIX --work DIR [--traces DIR] [--real DIR] [--update]

1. The GLM-5 story (tests/gen/gen_trace.py, 6 steps): the first finding is
   the KV cache cast: aten::copy_ of [495552, 1, 576] Float8_e4m3fn ->
   BFloat16, 69% of the step's GPU time, 78 calls a step of 856,313,856
   bytes, under aten::to > aten::_to_copy > aten::copy_; the memory-bound
   finding about the same group says it runs at 12.9% of the B200's 8 TB/s
   and overlaps it; and after the fix (--fixed) tix diff --by findings says
   the cast saved a third of what was predicted (the 557,496-block cast
   became the 377,050-block one: 64.5 -> 43.7 ms a step).
2. Every trace of --traces and --real and the generator's: what findings
   may never say (docs/FINDINGS.md, section 6): a saving below 0 or above
   the time it is about, a share above 1, NaN or infinity anywhere, a total
   above the step, a non-JSON figure; and the notes of section 7 where they
   apply (a CPU-only trace, GPU work without launch calls, an unknown
   device).
3. The ranked findings of every real trace (rank, rule, title, saving,
   share, overlaps) against tests/core/golden/findings/NAME.json, so a
   change in what tix tells a user is a diff to review.  --update writes
   them.  The corpus parts are skipped, naming the folder, when it is absent.
"""

import gzip
import json
import math
import os
import sys

import tixtest

GOLDEN = os.path.join(tixtest.HERE, "golden", "findings")


def strict_json(text):
    """json.loads that refuses NaN and infinities (Python takes them)."""
    def bad(c):
        raise ValueError("non-JSON number %s" % c)
    return json.loads(text, parse_constant=bad)


def findings(args, trace, *more):
    rc, out, err = tixtest.tix(args, "findings", trace, "--format", "json", "--top", "0", *more)
    if rc != 0:
        return None, "rc %d: %s" % (rc, err.strip()[:300])
    try:
        return strict_json(out), None
    except ValueError as e:
        return None, "not JSON: %s" % e


def numbers(v, path=""):
    """Every number in v, with where it is."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield from numbers(x, path + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from numbers(x, "%s[%d]" % (path, i))
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        yield path, v


def never(chk, name, f):
    """Section 6's promises, on one findings document."""
    bad = [p for p, v in numbers(f) if isinstance(v, float) and not math.isfinite(v)]
    chk.check(not bad, "%s: every figure finite" % name, ", ".join(bad[:5]))
    wrong = []
    for x in f["findings"]:
        if not (0 <= x["saving_ns"] <= max(x["gpu_ns"], 0)):
            wrong.append("#%d saving %d of %d" % (x["rank"], x["saving_ns"], x["gpu_ns"]))
        if not (0 <= x["share"] <= 1):
            wrong.append("#%d share %r" % (x["rank"], x["share"]))
        if x["share_of"] not in ("gpu_time", "wall_time"):
            wrong.append("#%d share_of %r" % (x["rank"], x["share_of"]))
    ranked = [x["saving_ns"] for x in f["findings"]]
    if ranked != sorted(ranked, reverse=True):
        wrong.append("not ranked by saving")
    bd = f["breakdown"]
    parts = bd["compute_ns"] + bd["comm_ns"] + bd["memory_ns"] + bd["idle_ns"]
    if parts != bd["span_ns"]:
        wrong.append("compute + comm + memory + idle = %d, span %d" % (parts, bd["span_ns"]))
    causes = [bd[k] for k in ("idle_host_ns", "idle_kernel_ns", "idle_other_ns")]
    if None not in causes and sum(causes) != bd["idle_ns"]:
        wrong.append("idle causes %d, idle %d" % (sum(causes), bd["idle_ns"]))
    chk.check(not wrong, "%s: savings within their time, shares within 0..1, ranked, parts sum" % name,
              "; ".join(wrong[:6]))
    return not wrong


def story(args, chk):
    base = os.path.join(args.work, "story.json.gz")
    fixed = os.path.join(args.work, "story-fixed.json.gz")
    tixtest.generate(base, "--steps", "6")
    tixtest.generate(fixed, "--steps", "6", "--fixed")
    f, err = findings(args, base)
    if not chk.check(f is not None, "story: tix findings --format json", err or ""):
        return
    never(chk, "story", f)
    top = f["findings"][0] if f["findings"] else {}
    ev = top.get("evidence", {})
    chk.check(top.get("rule") in ("repeated_copy", "memory_bound") and
              "[495552, 1, 576] Float8_e4m3fn -> BFloat16" in top.get("title", ""),
              "story: the first finding is the KV cache cast", top.get("title", ""))
    chk.check(abs(top.get("share", 0) - 0.69) < 0.01, "story: the cast is 69% of the step's GPU time",
              "share %r" % top.get("share"))
    chk.check(ev.get("calls_per_step") == 78 and ev.get("bytes_per_call") == 856313856,
              "story: 78 calls a step of 856,313,856 bytes", "%r" % ev)
    chk.eq(top.get("ops"), ["aten::to", "aten::_to_copy", "aten::copy_"], "story: the ops above the cast")
    mb = [x for x in f["findings"] if x["rule"] == "memory_bound"]
    chk.check(mb and "12.9% of the B200's 8.00 TB/s" in mb[0]["title"] and top["rank"] in mb[0]["overlaps"],
              "story: memory-bound at 12.9% of the B200's bandwidth, overlapping the first",
              mb[0]["title"] if mb else "none")
    chk.check(f["total_saving_ns"] <= f["per_step"][0]["wall_ns"] * 1.1 and f["total_saving_ns"] > 0,
              "story: the total, counted once, within a step", "%r" % f["total_saving_ns"])
    rc, out, err = tixtest.tix(args, "diff", base, fixed, "--by", "findings", "--format", "json")
    if not chk.check(rc == 0, "story: tix diff --by findings", err[:200]):
        return
    rows = strict_json(out)["rows"]
    cast = rows[0] if rows else {}
    chk.check(cast.get("rule") == top.get("rule") and cast.get("saved_ns", 0) > 0 and
              abs(cast["saved_ns"] / cast["predicted_saving_ns"] - 0.33) < 0.03 and
              "shape changed" in cast.get("matched", ""),
              "story: after the fix the cast saved a third of its prediction, its shape changed",
              "%r" % cast)


def derived(args, chk):
    """Section 7's notes on the story made worse: its device unknown (then
    given by --peak-bw / --peak-flops), its shapes gone, its launch calls
    gone."""
    src = os.path.join(args.work, "story.json.gz")
    with gzip.open(src, "rt") as f:
        trace = json.load(f)

    def variant(name, change):
        t = json.loads(json.dumps(trace))
        change(t)
        path = os.path.join(args.work, name + ".json")
        with open(path, "w") as f:
            json.dump(t, f)
        return path

    def unknown_device(t):
        for d in t["deviceProperties"]:
            d["name"] = "Future GPU X1"

    def no_shapes(t):
        for e in t["traceEvents"]:
            for k in ("Input Dims", "Input type", "Concrete Inputs", "Input Strides"):
                e.get("args", {}).pop(k, None)

    def no_launches(t):
        t["traceEvents"] = [e for e in t["traceEvents"] if e.get("cat") not in ("cuda_runtime", "cuda_driver")
                            and e.get("ph") != "s" and e.get("ph") != "f"]

    path = variant("story-unknown-device", unknown_device)
    f, err = findings(args, path)
    if chk.check(f is not None, "unknown device: tix findings", err or ""):
        never(chk, "unknown device", f)
        chk.check(any("not in tix's table of peaks" in n for n in f["notes"]) and
                  f["device"]["peak_bytes_per_s"] is None and
                  not any(x["rule"] in ("memory_bound", "compute_low") for x in f["findings"]) and
                  any(x["rule"] == "repeated_copy" for x in f["findings"]),
                  "unknown device: no peak, said so, no peak-based finding, the others still listed",
                  "%r" % f["notes"])
    f, err = findings(args, path, "--peak-bw", "8T", "--peak-flops", "bf16=2250T")
    chk.check(f is not None and f["device"]["overridden"] and f["device"]["peak_bytes_per_s"] == 8e12 and
              any(x["rule"] == "memory_bound" for x in f["findings"]),
              "unknown device with --peak-bw 8T: the memory-bound finding is back", err or "")
    rc, _, err = tixtest.tix(args, "findings", path, "--peak-bw", "fast")
    chk.check(rc == 1 and err.count("\n") == 1, "--peak-bw fast: a usage error in one line", err)
    f, err = findings(args, variant("story-no-shapes", no_shapes))
    if chk.check(f is not None, "no shapes: tix findings", err or ""):
        never(chk, "no shapes", f)
        chk.check(any("Input Dims" in n for n in f["notes"]) and not f["op_shapes"] and
                  f["breakdown"]["busy_ns"] > 0, "no shapes: said so, no op shapes, the breakdown still there",
                  "%r" % f["notes"])
    f, err = findings(args, variant("story-no-launches", no_launches))
    if chk.check(f is not None, "no launch calls: tix findings", err or ""):
        never(chk, "no launch calls", f)
        bd = f["breakdown"]
        chk.check(any("launch call" in n for n in f["notes"]) and bd["idle_host_ns"] is None and
                  bd["idle_sync_ns"] is None and bd["idle_kernel_ns"] is not None,
                  "no launch calls: said so; host wait unknown (null), not 0", "%r %r" % (f["notes"], bd))


def notes(args, chk, real, traces):
    """Section 7's notes, where they apply."""
    cases = [(os.path.join(traces, "cpu_only.pt.trace.json.gz"), "no GPU work"),
             (os.path.join(real, "launches_without_gpu_activity.json.gz"), "no GPU work"),
             (os.path.join(traces, "mtia_inference.json.gz"), "no GPU work")]
    for path, want in cases:
        if not os.path.exists(path):
            chk.skip("notes: %s" % os.path.basename(path), "not in the corpus")
            continue
        f, err = findings(args, tixtest.stage(path, args.work))
        chk.check(f is not None and any(want in n for n in f["notes"]),
                  "notes: %s says %r" % (os.path.basename(path), want), err or "%r" % (f or {}).get("notes"))


def ranked(f):
    return [{k: x[k] for k in ("rank", "rule", "title", "saving_ns", "share", "overlaps")}
            for x in f["findings"]] + [{"notes": f["notes"]}]


def goldens(args, chk, paths):
    os.makedirs(GOLDEN, exist_ok=True)
    for path in paths:
        name = os.path.basename(path).split(".json")[0]
        f, err = findings(args, tixtest.stage(path, args.work))
        if not chk.check(f is not None, "%s: tix findings" % name, err or ""):
            continue
        never(chk, name, f)
        got = ranked(f)
        gpath = os.path.join(GOLDEN, name + ".json")
        if args.update:
            with open(gpath, "w") as g:
                json.dump(got, g, indent=1)
                g.write("\n")
            print("wrote %s" % gpath)
            continue
        want = json.load(open(gpath)) if os.path.exists(gpath) else None
        chk.check(got == want, "%s: the findings a user reads are the golden ones" % name,
                  "golden/findings/%s.json differs (regenerate with --update after review): %s" %
                  (name, json.dumps(got)[:400]))


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--traces", help="HTA's test traces (../shared/traces)")
    p.add_argument("--real", help="real traces (../shared/traces/real)")
    p.add_argument("--update", action="store_true", help="write the goldens")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("findings_golden")
    story(args, chk)
    derived(args, chk)
    traces = args.traces if args.traces and os.path.isdir(args.traces) else None
    real = args.real if args.real and os.path.isdir(args.real) else None
    if not traces or not real:
        chk.skip("the corpus", "%s not found: its findings are not checked" % (args.traces or args.real))
    else:
        notes(args, chk, real, traces)
        paths = sorted(os.path.join(d, n) for d in (traces, real) for n in os.listdir(d)
                       if n.endswith((".json", ".json.gz")))
        goldens(args, chk, paths)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

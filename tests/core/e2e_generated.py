#!/usr/bin/env python3
"""Generated traces (tests/gen/gen_trace.py): the story of DESIGN.md and every
step-marker style, each checked against the reference recount.

  * decode trace (SGLang markers, 78 layers): `summary --by kernel --step N`
    ranks unrolled_elementwise_kernel first at ~69% with 78 launches per step
    and grid [557496,1,1] x block [128,1,1]; `show --kernel unrolled` reaches
    grid 557496 and the chain aten::to -> aten::_to_copy -> aten::copy_ with
    Input Dims [[495552, 1, 576], [495552, 1, 576], []]; numbers agree with
    the generator's --truth file.
  * ProfilerStep#N (default), SGLang with a prefill, vLLM execute_model, no
    marker (one step), --python-frames, gzip (same numbers as plain),
    the interleaved layout, and --step-marker REGEX.
  * rows that overlap without nesting (chains), against the recount; the
    finish on two threads writes the index one thread writes.
  * correlation ids too sparse for the direct table (the hashed one), and
    GPU events whose ids lie outside the launches' range, against the
    recount.
"""

import gzip
import json
import os
import re
import sys

import tixtest
from compare_recount import compare_trace

CAST = "unrolled_elementwise_kernel"


def tix_json(args, chk, what, *argv):
    rc, out, err = tixtest.tix(args, *argv)
    if not chk.check(rc == 0, "%s exits 0" % what, "rc %d %s" % (rc, err.strip()[:300])):
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        chk.check(False, "%s prints JSON" % what, str(e))
        return None


def decode_story(args, chk):
    path = os.path.join(args.work, "decode.json")
    truth_path = os.path.join(args.work, "decode.truth.json")
    tixtest.generate(path, "--steps", 2, "--marker", "sglang", truth=truth_path)
    with open(truth_path) as f:
        truth = json.load(f)
    compare_trace(args, chk, path, label="decode")
    # the index is compact: DESIGN.md's target is 12% of the JSON; per-instance
    # ids kept in the args would blow it (each launch a record of its own)
    rc, out, err = tixtest.tix(args, "index", path, "-o", path + ".tix")
    if chk.check(rc == 0, "decode: tix index", err[:200]):
        ratio = os.path.getsize(path + ".tix") / os.path.getsize(path)
        chk.check(ratio <= 0.12, "decode: .tix is %.1f%% of the JSON (<= 12%%)" % (100 * ratio))

    steps = tix_json(args, chk, "decode: summary --by step", "summary", path, "--by", "step", "--format", "json")
    if steps:
        chk.eq(len(steps["steps"]), len(truth["steps"]), "decode: %d steps" % len(truth["steps"]))
        chk.check(all(s["name"].startswith("step[DECODE bs=") for s in steps["steps"]),
                  "decode: steps named step[DECODE bs=N]")
        chk.check("SGLang" in steps.get("step_rule", ""), "decode: step rule is SGLang",
                  steps.get("step_rule"))
        for s, t in zip(steps["steps"], truth["steps"]):
            chk.eq((s["kernels"], s["gpu_events"], s["kernel_ns"]), (t["kernels"], t["gpu_events"], t["kernel_ns"]),
                   "decode: step %d kernels/gpu_events/kernel_ns match the generator's truth" % s["index"])
            chk.check(CAST in (s["top_kernel"] or ""), "decode: step %d top kernel is the cast" % s["index"])
            chk.check(65.0 <= s["top_pct"] <= 73.0, "decode: step %d top share ~69%%" % s["index"],
                      "%.3f" % s["top_pct"])
            chk.check(0 < s["gpu_busy_ns"] <= s["wall_ns"], "decode: step %d GPU busy <= wall" % s["index"])

    for n in range(len(truth["steps"])):
        k = tix_json(args, chk, "decode: summary --by kernel --step %d" % n, "summary", path, "--by", "kernel",
                     "--step", n, "--format", "json")
        if not k or not k["kernels"]:
            continue
        top = k["kernels"][0]
        chk.check(CAST in top["name"], "decode step %d: cast kernel ranked first" % n, top["name"][:80])
        chk.check(65.0 <= top["time_pct"] <= 73.0, "decode step %d: cast at ~69%%" % n, "%.3f" % top["time_pct"])
        chk.eq(top["instances"], 78, "decode step %d: 78 cast launches" % n)
        chk.eq((top["grid"], top["block"]), ([557496, 1, 1], [128, 1, 1]), "decode step %d: grid x block" % n)
        chk.eq(top["total_ns"], truth["steps"][n]["cast_ns"], "decode step %d: cast time = truth" % n)
        chk.eq(k.get("step"), n, "decode step %d: JSON names its step" % n)

    k = tix_json(args, chk, "decode: summary --by kernel", "summary", path, "--format", "json")
    if k:
        chk.eq(k["kernels"][0]["instances"], 78 * len(truth["steps"]), "decode: 78 casts per step overall")
        chk.eq(k["total_gpu_ns"], truth["totals"]["gpu_ns"], "decode: total GPU time = truth")
    rc, out, err = tixtest.tix(args, "summary", path)
    chk.check(rc == 0 and "[557496,1,1]" in out and "[128,1,1]" in out and "unrolled_elementwise_kernel<...>" in out,
              "decode: text summary shows the grid, block and the shortened name")
    rc, out, err = tixtest.tix(args, "summary", path, "--format", "csv", "--top", "3")
    lines = out.strip().split("\n")
    chk.check(rc == 0 and len(lines) == 4 and lines[0].startswith("time_pct,") and CAST in lines[1]
              and '"[557496,1,1]"' in lines[1], "decode: csv summary: header + 3 rows, full name")

    sh = tix_json(args, chk, "decode: show --kernel unrolled", "show", path, "--kernel", "unrolled", "--format", "json")
    if sh:
        chk.eq(sh["matched"], 78 * len(truth["steps"]), "show: matched every cast launch")
        chk.eq(len(sh["launches"]), 20, "show: --limit defaults to 20")
        l0 = sh["launches"][0]
        chk.eq((l0["grid"], l0["block"]), ([557496, 1, 1], [128, 1, 1]), "show: grid [557496,1,1] block [128,1,1]")
        chk.check(l0["launch"] and l0["launch"]["name"].startswith("cudaLaunchKernel"), "show: launch call found")
        chk.check(l0["launch"] and l0["launch"]["delay_ns"] >= 0, "show: launch precedes the kernel")
        names = [p["name"] for p in l0["parents"]]
        want_chain = ["aten::to", "aten::_to_copy", "aten::copy_"]
        chk.eq(names[-3:], want_chain, "show: parents end with aten::to -> aten::_to_copy -> aten::copy_")
        copy_ = [p for p in l0["parents"] if p["name"] == "aten::copy_"]
        if chk.check(copy_, "show: aten::copy_ among the parents"):
            chk.eq(copy_[-1].get("input_dims"), [[495552, 1, 576], [495552, 1, 576], []],
                   "show: aten::copy_ Input Dims [[495552, 1, 576], [495552, 1, 576], []]")
            chk.eq(copy_[-1].get("input_types", [])[:2], ["c10::BFloat16", "c10::Float8_e4m3fn"],
                   "show: aten::copy_ types BFloat16 <- Float8_e4m3fn")
        starts = [x["start_ns"] for x in sh["launches"]]
        chk.check(starts == sorted(starts), "show: launches in time order")
    sh = tix_json(args, chk, "decode: show --step 1 --limit 0", "show", path, "--kernel", "unrolled", "--step", 1,
                  "--limit", 0, "--format", "json")
    if sh:
        chk.check(sh["matched"] == 78 and len(sh["launches"]) == 78 and all(x["step"] == 1 for x in sh["launches"]),
                  "show --step 1 --limit 0: the 78 launches of step 1")
    rc, out, err = tixtest.tix(args, "show", path, "--kernel", "unrolled", "--limit", 1)
    chk.check(rc == 0 and "[557496, 1, 1]" in out and "[495552, 1, 576]" in out and "aten::copy_" in out
              and "bytes moved" in out, "show (text): the detail's grid, dims, aten::copy_ and bytes moved")
    rc, out, err = tixtest.tix(args, "show", path, "--kernel", "no_such_kernel_xyz")
    chk.check(rc == 0 and "no GPU event matches" in out, "show: no match says so")
    rc, out, err = tixtest.tix(args, "summary", path, "--step", 99)
    chk.check(rc == 2 and "no step 99" in err and len(err.strip().split("\n")) == 1,
              "summary --step 99 (out of range): exit 2, one line", "rc %d: %s" % (rc, err.strip()))
    for bad in (["summary", path, "--by", "bogus"], ["summary", path, "--format", "xml"],
                ["show", path], ["show", path, "--kernel", "("], ["export", path],
                ["summary"], ["summary", path, "--step", "x"], ["summary", path, "extra-arg"]):
        rc, out, err = tixtest.tix(args, *bad)
        chk.check(rc == 1 and err.strip() and "Traceback" not in err,
                  "usage error exits 1: tix %s" % " ".join(str(b) for b in bad[:1] + bad[2:]),
                  "rc %d: %s" % (rc, err.strip()[:200]))


def marker_styles(args, chk):
    small = ["--layers", 4]
    cases = [
        ("profilerstep", ["--steps", 3], "ProfilerStep#", 3),
        ("sglang-prefill", ["--steps", 3, "--marker", "sglang", "--prefill", "--bs", 4], "step[", 3),
        ("vllm", ["--steps", 2, "--marker", "vllm"], "execute_", 2),
        ("none", ["--steps", 2, "--marker", "none"], "(whole trace)", 1),
        ("python-frames", ["--steps", 2, "--python-frames"], "ProfilerStep#", 2),
        ("interleaved", ["--steps", 2, "--layout", "interleaved"], "ProfilerStep#", 2),
    ]
    for label, opts, prefix, nsteps in cases:
        path = os.path.join(args.work, "gen-%s.json" % label)
        tixtest.generate(path, *(small + opts))
        kj, sj, oj = compare_trace(args, chk, path, label=label)
        if sj:
            names = [s["name"] for s in sj["steps"]]
            chk.check(len(names) == nsteps and all(n.startswith(prefix) for n in names),
                      "%s: %d steps named %s..." % (label, nsteps, prefix), "got %s" % names)
        if label == "sglang-prefill" and sj:
            chk.check(sj["steps"][0]["name"].startswith("step[EXTEND") and
                      all(s["name"].startswith("step[DECODE bs=4") for s in sj["steps"][1:]),
                      "sglang-prefill: EXTEND then DECODE bs=4 steps")
        if label == "python-frames":
            sh = tix_json(args, chk, "python-frames: show", "show", path, "--kernel", "unrolled", "--limit", 1,
                          "--format", "json")
            if sh and sh["launches"]:
                kinds = [p["kind"] for p in sh["launches"][0]["parents"]]
                chk.check("python" in kinds, "python-frames: python frames in the parent chain", "kinds %s" % kinds)
                chk.eq([p["name"] for p in sh["launches"][0]["parents"]][-3:],
                       ["aten::to", "aten::_to_copy", "aten::copy_"], "python-frames: op chain still innermost")

    # gzip: the same trace compressed gives the same numbers
    plain = os.path.join(args.work, "gen-profilerstep.json")
    gz = os.path.join(args.work, "gen-profilerstep.json.gz")
    tixtest.generate(gz, *(small + ["--steps", 3]))
    for by in ("kernel", "step", "op"):
        a = tix_json(args, chk, "plain --by %s" % by, "summary", plain, "--by", by, "--format", "json")
        b = tix_json(args, chk, "gzip --by %s" % by, "summary", gz, "--by", by, "--format", "json")
        if a and b:
            a.pop("trace", None)
            b.pop("trace", None)
            chk.eq(b, a, "gzip: summary --by %s identical to the plain trace's" % by)
    compare_trace(args, chk, gz, label="gzip")
    gzip_two_threads(args, chk, plain)

    # --step-marker REGEX (POSIX ERE, searched anywhere in the name)
    compare_trace(args, chk, plain, marker="ProfilerStep#[13]$", label="profilerstep")
    sj = tix_json(args, chk, "--step-marker", "summary", plain, "--by", "step", "--format", "json",
                  "--step-marker", "ProfilerStep#[13]$")
    if sj:
        chk.eq([s["name"] for s in sj["steps"]], ["ProfilerStep#1", "ProfilerStep#3"],
               "--step-marker ProfilerStep#[13]$ keeps steps 1 and 3")
        chk.check("step-marker" in sj.get("step_rule", ""), "--step-marker: step rule says so", sj.get("step_rule"))
    compare_trace(args, chk, plain, marker="sgl_kernel::rmsnorm", label="profilerstep")
    rc, out, err = tixtest.tix(args, "summary", plain, "--step-marker", "([")
    chk.check(rc == 1 and "step-marker" in err, "--step-marker with a bad regex: usage error", err.strip())


def gzip_two_threads(args, chk, plain):
    """The two-thread gzip parse (TIX_SPLIT_MIN makes a small trace take it,
    small windows put many of them on each side of the cut), with ISA-L and
    with zlib, on one gzip member and on three cut at arbitrary bytes: each
    index is byte for byte the one a single thread writes from the same
    file."""
    data = open(plain, "rb").read()
    one = os.path.join(args.work, "gz2-one.json.gz")
    three = os.path.join(args.work, "gz2-three.json.gz")
    with open(one, "wb") as f:
        f.write(gzip.compress(data, 6))
    with open(three, "wb") as f:
        for a, b in ((0, len(data) // 3), (len(data) // 3, len(data) * 2 // 3 + 7), (len(data) * 2 // 3 + 7, len(data))):
            f.write(gzip.compress(data[a:b], 1))
    for path in (one, three):
        name = os.path.basename(path)
        ref = path + ".1.tix"
        env1 = dict(os.environ, TIX_THREADS="1", TIX_INFLATE="zlib")
        rc, out, err = tixtest.tix(args, "index", path, "-o", ref, env=env1)
        if not chk.check(rc == 0, "%s: one thread, zlib: indexed" % name, err.strip()[:300]):
            continue
        for engine in ("isa-l", "zlib"):
            env = dict(os.environ, TIX_SPLIT_MIN="4096", TIX_PARSE_WINDOW="3000")
            if engine == "zlib":
                env["TIX_INFLATE"] = "zlib"
            two = "%s.2.%s.tix" % (path, engine)
            rc, out, err = tixtest.tix(args, "index", path, "-o", two, env=env)
            if chk.check(rc == 0, "%s: two threads, %s: indexed" % (name, engine), err.strip()[:300]):
                chk.check(open(two, "rb").read() == open(ref, "rb").read(),
                          "%s: two threads, %s: the same index as one thread" % (name, engine),
                          "%s differs from %s" % (two, ref))


def overlapping_trace(path, seed, n_ops=4000):
    """CPU ops that start inside one another and outlive it (often by less
    than the 1 us slack), on two threads, each launching a kernel: the rows
    whose links would not walk to their ancestors, for the chain table."""
    import random
    rnd = random.Random(seed)
    ev, corr = [], 1
    for tid, n in ((1, n_ops), (2, n_ops // 4)):
        t = 0.0
        for i in range(n):
            t += rnd.choice((0.0, 0.2, 0.5, 1.0, 3.0, 10.0))
            dur = rnd.choice((0.3, 0.9, 1.5, 4.0, 12.0, 40.0, 200.0))
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::op%d" % rnd.randrange(12), "pid": 1,
                       "tid": tid, "ts": round(t, 3), "dur": dur})
            if i % 3 == 0:
                ls = round(t + rnd.random() * dur, 3)
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": tid,
                           "ts": ls, "dur": 0.2, "args": {"correlation": corr}})
                ev.append({"ph": "X", "cat": "kernel", "name": "kern%d" % (corr % 5), "pid": 0, "tid": 7,
                           "ts": round(ls + 5 + corr * 0.01, 3), "dur": 1.0,
                           "args": {"correlation": corr, "grid": [corr, 1, 1], "block": [128, 1, 1]}})
                corr += 1
    # A launch whose one container outlives its own container by less than
    # the slack, and starts after that one ended: outer does not contain
    # the launch, though walking links from inner reaches it.
    for k in range(3):
        t = 30000.0 + 100 * k
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::outer", "pid": 1, "tid": 1, "ts": t, "dur": 10.0})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::inner", "pid": 1, "tid": 1, "ts": t + 5, "dur": 5.9})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": t + 10.85, "dur": 0.2, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "kern_slack", "pid": 0, "tid": 7, "ts": t + 20, "dur": 2.0,
                   "args": {"correlation": corr, "grid": [1, 1, 1], "block": [32, 1, 1]}})
        corr += 1
    for k in range(4):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1,
                   "ts": k * 2500.0, "dur": 2500.0})
    rnd.shuffle(ev)
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def deep_trace(path, depth=400):
    """Ops nested depth levels deep (past the 256 ancestors the parents
    phase keeps lists for, so its check walks the links), with the slack
    case of overlapping_trace at the bottom: the launch is inside P but not
    Q, which P outlives within the slack."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "level%d" % (k % 5), "pid": 1, "tid": 1, "ts": float(k),
           "dur": float(4000 - 3 * k)} for k in range(depth)]
    for j in range(5):
        b = depth + 10 * j
        ev.append({"ph": "X", "cat": "cpu_op", "name": "Q", "pid": 1, "tid": 1, "ts": float(b), "dur": 5.0})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "P", "pid": 1, "tid": 1, "ts": float(b + 1), "dur": 4.8})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": float(b + 2), "dur": 4.5, "args": {"correlation": j + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "kern_deep", "pid": 0, "tid": 7, "ts": float(b + 3),
                   "dur": 1.0, "args": {"correlation": j + 1, "grid": [1, 1, 1], "block": [32, 1, 1]}})
    for i in range(2000):  # a second thread, flat
        ev.append({"ph": "X", "cat": "cpu_op", "name": "flat", "pid": 1, "tid": 2, "ts": float(3 * i), "dur": 2.0})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def handback_trace(path):
    """Flat ops, then a 300-deep stack whose bottom rows overlap without
    nesting (Z outlives X and Y; a launch inside Z only): split in the flat
    part, the second thread meets a row it could only check by walking
    into the first thread's rows, and hands the phase back to one thread."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "flat", "pid": 1, "tid": 1, "ts": 2.0 * i, "dur": 1.0}
          for i in range(3000)]
    t0, depth = 10000.0, 300
    ev += [{"ph": "X", "cat": "cpu_op", "name": "level%d" % (k % 5), "pid": 1, "tid": 1, "ts": t0 + k,
            "dur": float(4000 - 3 * k)} for k in range(depth)]
    for j in range(5):
        t = t0 + depth + 30 * j
        for name, start, dur in (("X", 0, 10.0), ("Y", 5, 5.8), ("Z", 6, 9.0)):
            ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t + start, "dur": dur})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": t + 11, "dur": 0.2, "args": {"correlation": j + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "kern_z", "pid": 0, "tid": 7, "ts": t + 12, "dur": 1.0,
                   "args": {"correlation": j + 1, "grid": [1, 1, 1], "block": [32, 1, 1]}})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def overlapping_rows(args, chk):
    """Rows that overlap without nesting, against the recount (ancestors by
    containment: the chain table, and a launch whose container outlives its
    own container within the slack), near the top of a stack and 400 deep.
    Returns the traces."""
    traces = []
    for seed in (1, 2, 3):
        path = os.path.join(args.work, "overlap%d.json" % seed)
        overlapping_trace(path, seed)
        compare_trace(args, chk, path, label=os.path.basename(path))
        traces.append(path)
    for name, make in (("deep.json", deep_trace), ("handback.json", handback_trace)):
        path = os.path.join(args.work, name)
        make(path)
        compare_trace(args, chk, path, label=name)
        traces.append(path)
    return traces


def finish_two_threads(args, chk, traces):
    """The finish on two threads (TIX_SPLIT_ROWS=2 splits any trace, inside
    its main thread): the index is byte for byte what one thread writes, on
    the overlapping traces (rows open across the cut, chains) and on
    python-frame stacks."""
    frames = os.path.join(args.work, "frames2.json")
    tixtest.generate(frames, "--steps", 3, "--python-frames", "--stack-depth", 12)
    for path in traces + [frames]:
        name = os.path.basename(path)
        ref = path + ".1.tix"
        rc, out, err = tixtest.tix(args, "index", path, "-o", ref, env=dict(os.environ, TIX_THREADS="1"))
        if not chk.check(rc == 0, "%s: one thread: indexed" % name, err.strip()[:300]):
            continue
        for rows in ("2", "1000"):
            two = "%s.%s.tix" % (path, rows)
            env = dict(os.environ, TIX_SPLIT_ROWS=rows)
            rc, out, err = tixtest.tix(args, "index", path, "-o", two, env=env)
            if chk.check(rc == 0, "%s: finish split from %s rows: indexed" % (name, rows), err.strip()[:300]):
                chk.check(open(two, "rb").read() == open(ref, "rb").read(),
                          "%s: finish split from %s rows: the same index as one thread" % (name, rows),
                          "%s differs from %s" % (two, ref))


def correlation_ids(args, chk):
    """index/build/launches.c looks launches up by id in a table indexed by
    the id less the smallest when the ids are dense (Kineto's), else in a
    hash: the same trace with its ids spread out (x 7919 + 10^12) takes the
    hash, and one whose GPU events name ids just outside the launches'
    range (those are unlinked) tests the direct table's bounds; each
    against the recount."""
    base = os.path.join(args.work, "corr.json")
    tixtest.generate(base, "--steps", 3, "--layers", 4)
    text = open(base).read()
    ids = [int(x) for x in re.findall(r'"correlation":\s*(\d+)', text)]
    if not chk.check(len(ids) > 100, "correlation ids: the generator writes them", "%d ids" % len(ids)):
        return
    sparse = os.path.join(args.work, "corr-sparse.json")
    with open(sparse, "w") as f:
        f.write(re.sub(r'"correlation":\s*(\d+)', lambda m: '"correlation": %d' % (int(m.group(1)) * 7919 + 10**12),
                       text))
    compare_trace(args, chk, sparse, label="corr-sparse.json")
    # two GPU events name ids past the launches' range, one below it
    lo, hi = min(ids), max(ids)
    trace = json.loads(text)
    gpu = [e for e in trace["traceEvents"] if e.get("cat") == "kernel" and "correlation" in e.get("args", {})]
    moved = [hi + 1, hi + 2] + ([lo - 1] if lo > 0 else [])
    for e, v in zip(gpu, moved):
        e["args"]["correlation"] = v
    chk.check(len(gpu) >= len(moved), "correlation ids: kernels to move out of the range", "%d kernels" % len(gpu))
    outside = os.path.join(args.work, "corr-outside.json")
    with open(outside, "w") as f:
        json.dump(trace, f)
    compare_trace(args, chk, outside, label="corr-outside.json")


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_generated")
    decode_story(args, chk)
    marker_styles(args, chk)
    finish_two_threads(args, chk, overlapping_rows(args, chk))
    correlation_ids(args, chk)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

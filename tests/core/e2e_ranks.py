#!/usr/bin/env python3
"""`tix summary TRACE... --by rank` against the independent recount and the
generator's truth (issue 11).

    e2e_ranks.py --tix TIX --work DIR             generated and hand-made sets
    e2e_ranks.py --tix TIX --work DIR --real DIR [--hta DIR]
                                                  the real traces (exit 77,
                                                  naming the folder, when absent)

  tp         generated TP2 / TP4 / TP8 runs with a slow rank (tests/gen
             --ranks N --slow-rank K): every cell and step equal to the
             recount (tests/ref/recount.py --by ranks, which shares no code
             with tix) and to the generator's truth; the slow rank is the
             straggler of every step and overall; skew = max - min comm
  cpu        a rank whose CPU side is slow (its GPU starves, its compute is
             the others'): still the straggler; slowest_compute is not it,
             and the text says so
  known      hand-made traces with answers worked out by hand: unions of
             compute and comm, overlap, memcpy as compute, the comm rule on
             NCCL, vLLM custom all-reduce (also mangled) and non-comm names,
             ties (the lowest rank), a rank missing a step (null, "-"),
             a step with one rank (no skew)
  rules      distributedInfo (files given out of order), SGLang file names
             (TP-N), -rankN / rank_N, the order given; --rank-from; duplicate
             ranks refused (exit 1, one line naming both files)
  jobs       --jobs 1 and --jobs 4 print the same stdout and stderr (the
             per-file warnings in the order given), building and reusing;
             --no-cache --jobs 4 leaves nothing behind; failing files are
             each named, exit 2, no table
  usage      options that do not apply, --step beyond the ranks, --step N
"""

import csv
import io
import json
import os
import random
import shutil
import sys

import tixtest

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402  (the reference; shares no code with tix)

CELL_KEYS = ("index", "name", "wall_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns",
             "gpu_events", "comm_kernels", "wait_ns", "straggler")
STEP_KEYS = ("index", "ranks", "skew_ns", "straggler", "slowest_compute", "compute_spread_ns",
             "comm_mismatch")
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def ranks_json(args, chk, label, files, *extra, rc_want=0):
    rc, out, err = tixtest.tix(args, "summary", *files, "--by", "rank", "--format", "json", *extra,
                               timeout=600)
    if not chk.check(rc == rc_want, "%s: exit %d" % (label, rc_want),
                     "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[-400:])):
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        chk.check(False, "%s: valid JSON" % label, str(e))
        return None


def recount_ranks(files, *extra):
    rc, out, err = tixtest.run([sys.executable, tixtest.RECOUNT, "--by", "ranks"] + list(files) + list(extra),
                               timeout=600)
    if rc != 0:
        raise RuntimeError("recount failed (%d): %s" % (rc, err))
    return json.loads(out)


def compare(chk, label, got, want):
    """tix's --by rank JSON against the recount's, field by field."""
    if got is None:
        return
    chk.eq(got["rank_rule"], want["rank_rule"], "%s: rank rule" % label)
    chk.eq([(r["rank"], r["trace"]) for r in got["ranks"]], [(r["rank"], r["trace"]) for r in want["ranks"]],
           "%s: ranks and their traces, in rank order" % label)
    bad = []
    for g, w in zip(got["ranks"], want["ranks"]):
        if g["world_size"] != w["world_size"]:
            bad.append("rank %s world_size %r != %r" % (g["rank"], g["world_size"], w["world_size"]))
        if len(g["steps"]) != len(w["steps"]):
            bad.append("rank %s: %d steps, want %d" % (g["rank"], len(g["steps"]), len(w["steps"])))
        for gc, wc in zip(g["steps"], w["steps"]):
            if (gc is None) != (wc is None):
                bad.append("rank %s: cell %r, want %r" % (g["rank"], gc, wc))
            elif gc is not None:
                for k in CELL_KEYS:
                    if gc[k] != wc[k]:
                        bad.append("rank %s step %s %s: %r != %r" % (g["rank"], gc["index"], k, gc[k], wc[k]))
    chk.check(not bad, "%s: every cell equals the recount's (%d ranks x %d steps)"
              % (label, len(got["ranks"]), len(got["steps"])), "; ".join(bad[:6]))
    bad = ["step %s %s: %r != %r" % (g["index"], k, g[k], w[k])
           for g, w in zip(got["steps"], want["steps"]) for k in STEP_KEYS if g[k] != w[k]]
    if len(got["steps"]) != len(want["steps"]):
        bad.append("%d steps, want %d" % (len(got["steps"]), len(want["steps"])))
    chk.check(not bad, "%s: every step's skew and straggler equal the recount's" % label, "; ".join(bad[:6]))
    chk.eq(got["straggler"], want["straggler"], "%s: the overall straggler and its counts" % label)


def against_truth(chk, label, got, truth):
    if got is None:
        return
    bad = []
    for g, t in zip(got["ranks"], truth["ranks"]):
        for gc, tc in zip(g["steps"], t["steps"]):
            for k in ("wall_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "comm_kernels"):
                if gc[k] != tc[k]:
                    bad.append("rank %d step %d %s: %r != truth %r" % (g["rank"], tc["index"], k, gc[k], tc[k]))
    for g, t in zip(got["steps"], truth["steps"]):
        for k in ("skew_ns", "straggler", "slowest_compute"):
            if g[k] != t[k]:
                bad.append("step %d %s: %r != truth %r" % (t["index"], k, g[k], t[k]))
        waits = [r["steps"][t["index"]]["wait_ns"] for r in got["ranks"]]
        if waits != t["waits_ns"]:
            bad.append("step %d waits %r != truth %r" % (t["index"], waits, t["waits_ns"]))
    chk.check(not bad, "%s: figures, waits, skew and stragglers equal the generator's truth" % label,
              "; ".join(bad[:6]))


def gen_tp(w, name, n, slow, *opts):
    out = os.path.join(w, name + ".json")
    truth = os.path.join(w, name + ".truth.json")
    tixtest.generate(out, "--ranks", n, "--slow-rank", slow, *opts, truth=truth)
    with open(truth) as f:
        t = json.load(f)
    return t["files"], t


def check_tp(args, chk, w, name, n, slow, *opts):
    files, truth = gen_tp(w, name, n, slow, *opts)
    given = list(files)
    random.Random(n).shuffle(given)  # the rank comes from distributedInfo, not the order
    d = ranks_json(args, chk, name, given)
    compare(chk, name, d, recount_ranks(given))
    against_truth(chk, name, d, truth)
    if d:
        chk.check(all(s["straggler"] == slow for s in d["steps"]),
                  "%s: rank %d is the straggler of every step" % (name, slow),
                  str([s["straggler"] for s in d["steps"]]))
        chk.eq((d["straggler"]["rank"], d["straggler"]["steps"], d["straggler"]["of"]),
               (slow, len(d["steps"]), len(d["steps"])), "%s: the overall straggler" % name)
        chk.eq((d["rank_rule"], d["world_size"]), ("distributedInfo", n), "%s: ranks from distributedInfo" % name)
        others = [c["steps"][0]["comm_ns"] for c in d["ranks"] if c["rank"] != slow]
        mine = d["ranks"][slow]["steps"][0]["comm_ns"]
        chk.check(all(o > 2 * mine for o in others),
                  "%s: the other ranks' comm time grows (they wait in the all-reduce)" % name,
                  "slow %d, others %s" % (mine, others))
    return files, truth, d


# ---------------------------------------------------------------------------
# hand-made traces

def write_trace(path, steps, info=None, extra_top=None):
    """steps: per step a list of (name, start_us, dur_us, stream, cat) from
    the step's start; each launched by its own cudaLaunchKernel inside a
    1000 us ProfilerStep#N.  info: (rank, world_size) or None."""
    ev, corr = [], 1
    for i, kernels in enumerate(steps):
        t0 = 1000.0 + 5000.0 * i
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1, "tid": 1,
                   "ts": t0, "dur": 1000.0})
        for k, (name, start, dur, stream, cat) in enumerate(kernels):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t0 + 1 + k, "dur": 0.5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": t0 + start,
                       "dur": dur, "args": {"correlation": corr, "device": 0, "stream": stream}})
            corr += 1
    doc = {"schemaVersion": 1, "traceEvents": ev}
    if info is not None:
        # a "rank" one level down first: only the top level's counts
        doc["distributedInfo"] = {"backend": "nccl", "pg_config": [{"rank": 99, "ranks": [0, 1, 2]}],
                                  "rank": info[0], "world_size": info[1]}
    doc.update(extra_top or {})
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


CDR = "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, int)"
CDR_MANGLED = "_ZN4vllm25cross_device_reduce_2stageI13__nv_bfloat16Li8EEEvPNS_8RankDataENS_11RankSignalsEPT_i"
REDUCE = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(at::native::ReduceOp<float>)"


def known(args, chk, w):
    d0 = os.path.join(w, "known")
    os.makedirs(d0, exist_ok=True)
    # rank 0: step 0 compute [10,110) + a non-comm reduce [110,115) on 7, nccl [120,170) on 20;
    #         step 1 gemm [10,60), memcpy [60,80), cross_device_reduce [70,100) on 21
    a = write_trace(os.path.join(d0, "a.json"), [
        [("gemm", 10, 100, 7, "kernel"), (REDUCE, 110, 5, 7, "kernel"), (NCCL, 120, 50, 20, "kernel")],
        [("gemm", 10, 50, 7, "kernel"), ("Memcpy DtoD (Device -> Device)", 60, 20, 7, "gpu_memcpy"),
         (CDR, 70, 30, 21, "kernel")]], info=(0, 3))
    # rank 1: step 0 compute 135 us, comm 25; step 1 compute 70, comm 20 (mangled name), no overlap
    b = write_trace(os.path.join(d0, "b.json"), [
        [("gemm", 10, 135, 7, "kernel"), (NCCL, 145, 25, 20, "kernel")],
        [("gemm", 10, 50, 7, "kernel"), ("Memcpy DtoD (Device -> Device)", 60, 20, 7, "gpu_memcpy"),
         (CDR_MANGLED, 80, 20, 21, "kernel")]], info=(1, 3))
    # rank 2: only step 0, as rank 0's
    c = write_trace(os.path.join(d0, "c.json"), [
        [("gemm", 10, 100, 7, "kernel"), (REDUCE, 110, 5, 7, "kernel"), (NCCL, 120, 50, 20, "kernel")]],
        info=("2", 3))  # as a string of digits
    d = ranks_json(args, chk, "known", [c, a, b])
    if d:
        cells = {(r["rank"], s["index"]): s for r in d["ranks"] for s in r["steps"] if s}
        want = {(0, 0): (105000, 50000, 155000, 0, 1, 25000), (1, 0): (135000, 25000, 160000, 0, 1, 0),
                (2, 0): (105000, 50000, 155000, 0, 1, 25000),
                (0, 1): (70000, 30000, 90000, 10000, 1, 10000), (1, 1): (70000, 20000, 90000, 0, 1, 0)}
        chk.eq({k: (c["compute_ns"], c["comm_ns"], c["gpu_busy_ns"], c["overlap_ns"], c["comm_kernels"],
                    c["wait_ns"]) for k, c in cells.items()}, want,
               "known: compute, comm, busy, overlap, comm kernels and waits worked out by hand")
        chk.eq([r["steps"][1] for r in d["ranks"] if r["rank"] == 2], [None],
               "known: rank 2 has no step 1: null, not zero")
        chk.eq([(s["ranks"], s["skew_ns"], s["straggler"], s["slowest_compute"], s["compute_spread_ns"])
                for s in d["steps"]], [(3, 25000, 1, 1, 30000), (2, 10000, 1, 0, 0)],
               "known: per step ranks, skew, straggler, slowest compute (a tie: the lowest rank), spread")
        chk.eq(d["straggler"], {"rank": 1, "steps": 2, "of": 2, "counts": [{"rank": 1, "steps": 2}]},
               "known: the overall straggler")
    compare(chk, "known", d, recount_ranks([c, a, b]))
    rc, out, err = tixtest.tix(args, "summary", a, b, c, "--by", "rank")
    lines = out.splitlines()
    chk.check(rc == 0 and any(l.split()[1:3] == ["1", "*"] for l in lines),
              "known: text marks the straggler with *", out[:600])
    row = [l for l in lines if l.rstrip().endswith("c.json")]
    chk.check(len(row) == 2 and row[1].split()[:3] == ["1", "2", "-"],
              "known: text shows '-' for the missing step", "\n".join(row))
    chk.check(all(os.sep not in l.split()[-1] for l in lines[2:2 + 6]),
              "known: rows name the trace's file, not its path", out[:600])
    chk.check("straggler: rank 1 in 2 of 2 steps" in out, "known: text names the overall straggler", out[-400:])
    # CSV: the same cells as the JSON's, one row a step and rank
    rc, out, err = tixtest.tix(args, "summary", a, b, c, "--by", "rank", "--format", "csv")
    csv_rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    if d:
        want = [(str(s["index"]), str(r["rank"]), s["wall_ns"], s["comm_ns"], s["wait_ns"])
                for s_i in range(2) for r in d["ranks"] for s in [r["steps"][s_i]] if s]
        got = [(x["index"], x["rank"], int(x["wall_ns"]), int(x["comm_ns"]),
                int(x["wait_ns"]) if x["wait_ns"] else None) for x in csv_rows if x["wall_ns"]]
        chk.eq(got, want, "known: --format csv has the rows and cells of the JSON")
    # a folder: its traces, named once by their file ("dir/" is no "dir//")
    one = os.path.join(d0, "one-run")
    os.makedirs(one, exist_ok=True)
    for f in (a, b, c):
        shutil.copyfile(f, os.path.join(one, os.path.basename(f)))
    rc, out, err = tixtest.tix(args, "summary", one + "/", "--by", "rank", "--format", "json")
    chk.check(rc == 0 and [os.path.basename(r["trace"]) for r in json.loads(out)["ranks"]]
              == ["a.json", "b.json", "c.json"] and "//" not in out,
              "known: summary DIR --by rank takes the folder's traces", "rc %d %r" % (rc, err or out[:300]))

    # one rank alone: no skew, no straggler
    d = ranks_json(args, chk, "one rank", [a])
    if d:
        chk.check(all(s["skew_ns"] is None and s["straggler"] is None for s in d["steps"])
                  and d["straggler"]["rank"] is None, "one rank: no skew, no straggler")
    # equal ranks: nobody waited, nobody straggled
    e = write_trace(os.path.join(d0, "e.json"), [[("gemm", 10, 100, 7, "kernel"), (NCCL, 120, 50, 20, "kernel")]],
                    info=(1, 2))
    f = write_trace(os.path.join(d0, "f.json"), [[("gemm", 10, 100, 7, "kernel"), (NCCL, 120, 50, 20, "kernel")]],
                    info=(0, 2))
    d = ranks_json(args, chk, "equal", [e, f])
    if d:
        chk.eq((d["steps"][0]["skew_ns"], d["steps"][0]["straggler"], d["straggler"]["rank"]), (0, None, None),
               "equal ranks: skew 0 and no straggler")
    # no collective at all: no skew
    g = write_trace(os.path.join(d0, "g.json"), [[("gemm", 10, 100, 7, "kernel")]], info=(0, 2))
    h = write_trace(os.path.join(d0, "h.json"), [[("gemm", 10, 120, 7, "kernel")]], info=(1, 2))
    d = ranks_json(args, chk, "no comm", [g, h])
    if d:
        chk.eq((d["steps"][0]["skew_ns"], d["steps"][0]["straggler"], d["steps"][0]["slowest_compute"]),
               (None, None, 1), "no comm kernels: skew unknown, no straggler, slowest compute named")
    # different numbers of collectives: said
    i = write_trace(os.path.join(d0, "i.json"), [[("gemm", 10, 100, 7, "kernel"), (NCCL, 120, 50, 20, "kernel"),
                                                  (NCCL, 180, 5, 20, "kernel")]], info=(1, 2))
    d = ranks_json(args, chk, "mismatch", [f, i])
    if d:
        chk.check(d["steps"][0]["comm_mismatch"], "mismatch: ranks with different comm kernel counts are flagged")
    compare(chk, "mismatch", d, recount_ranks([f, i]))
    return a, b, c


def rules(args, chk, w, tp_files):
    d0 = os.path.join(w, "rules")
    if os.path.isdir(d0):
        shutil.rmtree(d0)
    os.makedirs(d0)
    # SGLang names, no distributedInfo
    sg = []
    for r, src in enumerate(tp_files):
        with open(src) as f:
            doc = json.load(f)
        del doc["distributedInfo"]
        p = os.path.join(d0, "1767189-TP-%d-DP-0-PP-0-EP-%d.trace.json" % (r, r))
        with open(p, "w") as f:
            json.dump(doc, f)
        sg.append(p)
    given = sg[::-1]
    d = ranks_json(args, chk, "names TP-N", given)
    if d:
        chk.eq((d["rank_rule"], [r["trace"] for r in d["ranks"]]), ("name", sg), "names TP-N: ranks from TP-N")
        chk.eq(d["rank_rule_text"], "file name (TP-N)", "names TP-N: the rule is said")
    compare(chk, "names TP-N", d, recount_ranks(given))
    rc, out, err = tixtest.tix(args, "summary", *given, "--by", "rank")
    chk.check(rc == 0 and out.startswith("%d ranks, told by file name (TP-N)" % len(sg)),
              "names TP-N: the text's first line says which rule", out[:200])
    chk.check(rc == 0 and [l.split()[1] for l in out.splitlines()[2:2 + len(sg)]]
              == ["TP-%d" % k for k in range(len(sg))] and "straggler: TP-" in out,
              "names TP-N: rows and the straggler line name a rank TP-N", out[:600])
    # -rankN, rank_N, and the order given
    steps = [[("gemm", 10, 100, 7, "kernel"), (NCCL, 120, 50, 20, "kernel")]]
    x = [write_trace(os.path.join(d0, n), steps) for n in ("job-rank2.json", "job_rank_0.json", "jobrank-rank1.json")]
    d = ranks_json(args, chk, "names rankN", x)
    if d:
        chk.eq([(r["rank"], os.path.basename(r["trace"])) for r in d["ranks"]],
               [(0, "job_rank_0.json"), (1, "jobrank-rank1.json"), (2, "job-rank2.json")],
               "names rankN: -rank2, _rank_0, -rank1 (not the 'rank' inside 'jobrank')")
    compare(chk, "names rankN", d, recount_ranks(x))
    y = [write_trace(os.path.join(d0, n), steps) for n in ("zeta.json", "alpha.json", "mid.json")]
    d = ranks_json(args, chk, "order", y)
    if d:
        chk.eq((d["rank_rule"], [r["trace"] for r in d["ranks"]]), ("order", y), "order: as given, from 0")
    compare(chk, "order", d, recount_ranks(y))
    # duplicates
    rc, out, err = tixtest.tix(args, "summary", tp_files[0], tp_files[0], "--by", "rank")
    chk.check(rc == 1 and not out and err.count("\n") == 1 and "both rank 0" in err and "distributedInfo" in err,
              "duplicates: the same distributedInfo.rank twice -> exit 1, one line", "rc %d %r" % (rc, err))
    dup = [write_trace(os.path.join(d0, n), steps) for n in ("a-TP-0.json", "b-TP-0.json")]
    rc, out, err = tixtest.tix(args, "summary", *dup, "--by", "rank")
    chk.check(rc == 1 and err.count("\n") == 1 and "a-TP-0.json" in err and "b-TP-0.json" in err
              and "TP-N" in err, "duplicates: two TP-0 file names -> exit 1 naming both", "rc %d %r" % (rc, err))
    rc, _, _ = tixtest.run([sys.executable, tixtest.RECOUNT, "--by", "ranks"] + dup)
    chk.eq(rc, 1, "duplicates: the recount refuses them too")
    d = ranks_json(args, chk, "--rank-from order", dup, "--rank-from", "order")
    if d:
        chk.eq(d["rank_rule"], "order", "--rank-from order numbers duplicates as given")
    compare(chk, "--rank-from order", d, recount_ranks(dup, "--rank-from", "order"))
    rc, out, err = tixtest.tix(args, "summary", *dup, "--by", "rank", "--rank-from", "info")
    chk.check(rc == 1 and "no distributedInfo.rank" in err, "--rank-from info without distributedInfo -> exit 1",
              "rc %d %r" % (rc, err))


def remove_last_marker(src, dst):
    with open(src) as f:
        doc = json.load(f)
    marks = [e for e in doc["traceEvents"]
             if e.get("name", "").startswith("ProfilerStep#") and e.get("cat") == "user_annotation"]
    last = max(marks, key=lambda e: float(e["ts"]))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e is not last]
    with open(dst, "w") as f:
        json.dump(doc, f)
    return dst


def missing_step(args, chk, w, tp_files):
    d0 = os.path.join(w, "missing")
    os.makedirs(d0, exist_ok=True)
    files = []
    for r, p in enumerate(tp_files):
        dst = os.path.join(d0, os.path.basename(p))
        if r == 1:
            remove_last_marker(p, dst)
        else:
            shutil.copyfile(p, dst)
        files.append(dst)
    d = ranks_json(args, chk, "missing step", files)
    if d:
        last = len(d["steps"]) - 1
        chk.check(d["ranks"][1]["steps"][last] is None and d["steps"][last]["ranks"] == len(files) - 1,
                  "missing step: rank 1's last step is null; the step counts the other ranks",
                  json.dumps(d["ranks"][1]["steps"][last]))
    compare(chk, "missing step", d, recount_ranks(files))


def clear_indexes(d):
    for n in os.listdir(d):
        if n.endswith(".tix"):
            os.unlink(os.path.join(d, n))


def jobs(args, chk, w, known_files):
    d0 = os.path.join(w, "jobs")
    if os.path.isdir(d0):
        shutil.rmtree(d0)
    os.makedirs(d0)
    out = os.path.join(d0, "g.json")
    # graph replays: every file's index carries a warning, to see their order
    tixtest.generate(out, "--ranks", 4, "--slow-rank", 3, "--graph", "--steps", 3, "--layers", 3)
    files = [os.path.join(d0, "g-rank%d.json" % r) for r in range(4)]
    given = [files[2], files[0], files[3], files[1]]
    runs = {}
    for label, j in (("build --jobs 4", 4), ("build --jobs 1", 1)):
        clear_indexes(d0)
        runs[label] = tixtest.tix(args, "summary", *given, "--by", "rank", "--jobs", j)
        chk.check(len([n for n in os.listdir(d0) if n.endswith(".tix")]) == 4, "%s: 4 indexes built" % label)
    runs["reuse --jobs 4"] = tixtest.tix(args, "summary", *given, "--by", "rank", "--jobs", 4)
    runs["reuse --jobs 1"] = tixtest.tix(args, "summary", *given, "--by", "rank", "--jobs", 1)
    ref = runs["build --jobs 1"]
    chk.check(ref[0] == 0 and ref[2].count("warning") == 4, "jobs: --jobs 1 exits 0 with 4 warnings", ref[2])
    warned = [l.split(":")[1].strip() for l in ref[2].splitlines() if "warning" in l]
    chk.eq(warned, given, "jobs: the warnings come in the order the files were given")
    for label, res in runs.items():
        chk.eq(res, ref, "jobs: %s prints what --jobs 1 prints (stdout, stderr, status)" % label)
    # --no-cache in parallel: the same figures, nothing left behind
    clear_indexes(d0)
    tmp = os.path.join(d0, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    res = tixtest.run([args.tix, "summary"] + given + ["--by", "rank", "--jobs", "4", "--no-cache"], env=env)
    chk.eq(res, ref, "jobs: --no-cache --jobs 4 prints the same")
    left = [n for n in os.listdir(d0) if n.endswith(".tix")] + os.listdir(tmp)
    xdg = os.path.join(os.environ["XDG_CACHE_HOME"], "tix")
    left += [n for n in (os.listdir(xdg) if os.path.isdir(xdg) else []) if "nocache" in n]
    chk.eq(left, [], "jobs: --no-cache leaves no index and no temporary folder")
    # failures, each named, whatever the jobs
    bad = os.path.join(d0, "broken.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7} x')
    missing = os.path.join(d0, "missing.json")
    for j in (1, 3):
        rc, o, e = tixtest.tix(args, "summary", files[0], bad, missing, known_files[0], "--by", "rank", "--jobs", j)
        chk.check(rc == 2 and not o and "broken.json" in e and "missing.json" in e
                  and e.index("broken.json") < e.index("missing.json"),
                  "jobs %d: a broken and a missing file are both named, exit 2, no table" % j, "rc %d %r" % (rc, e))


def usage(args, chk, a):
    for extra, what in ((["--top", "3"], "--top"), (["--kernel", "x"], "--kernel"), (["--format", "xml"], "xml"),
                        (["--jobs", "0"], "--jobs"), (["--rank-from", "x"], "--rank-from")):
        rc, out, err = tixtest.tix(args, "summary", a, a, "--by", "rank", *extra)
        chk.check(rc == 1 and err.count("\n") == 1 and what in err, "usage: %s -> exit 1, one line" % " ".join(extra),
                  "rc %d %r" % (rc, err))
    rc, out, err = tixtest.tix(args, "summary", "--by", "rank")
    chk.check(rc == 1 and "which traces" in err, "usage: no trace -> exit 1", "rc %d %r" % (rc, err))
    rc, out, err = tixtest.tix(args, "summary", a, "--by", "rank", "--step", 9)
    chk.check(rc == 2 and "no step 9" in err, "usage: --step beyond the ranks -> exit 2", "rc %d %r" % (rc, err))


def real(args, chk):
    folders = [f for f in (args.real, args.hta) if f]
    if not folders or not all(os.path.isdir(f) for f in folders):
        print("skip  real traces: no folder %s (the shared corpus is not beside the checkout)"
              % " or ".join(f for f in folders if not os.path.isdir(f)) if folders else "skip  real traces: no folder given")
        return 77
    found = {}
    for f in folders:
        for n in sorted(os.listdir(f)):
            if n.endswith((".json", ".json.gz")):
                found[n] = os.path.join(f, n)
    # the real traces of multi-rank runs (distributedInfo world_size > 1)
    multi = []
    for n, p in found.items():
        try:
            tr = recount.load_trace(p)
        except ValueError:  # a truncated trace: not a rank of anything
            continue
        if (recount.info_world(tr) or 0) > 1 and recount.info_rank(tr) is not None:
            multi.append((recount.info_rank(tr), n, tixtest.stage(p, args.work)))
    print("info  multi-rank traces: %s" % ", ".join("%s (rank %d)" % (n, r) for r, n, _ in multi))
    if not chk.check(len(multi) >= 2, "real: at least two traces of multi-rank runs"):
        return chk.done()
    # one per rank number: a set whose ranks differ
    byrank = {}
    for r, n, p in multi:
        byrank.setdefault(r, p)
    distinct = list(byrank.values())
    d = ranks_json(args, chk, "real set", distinct)
    compare(chk, "real set", d, recount_ranks(distinct))
    if d:
        chk.check(any(c and c["comm_kernels"] for r in d["ranks"] for c in r["steps"]),
                  "real set: NCCL/RCCL kernels are found as communication")
    rc, out, err = tixtest.tix(args, "summary", *distinct, "--by", "rank")
    chk.check(rc == 0 and "world_size differs" in err, "real set: world sizes that differ are warned of", err[-300:])
    dups = [p for r, n, p in multi if r == multi[0][0]]
    if len(dups) >= 2:
        rc, out, err = tixtest.tix(args, "summary", *dups[:2], "--by", "rank")
        errs = [l for l in err.splitlines() if ": warning: " not in l]  # the traces' own warnings aside
        chk.check(rc == 1 and len(errs) == 1 and "both rank %d" % multi[0][0] in errs[0],
                  "real: two rank-%d traces are refused" % multi[0][0], "rc %d %r" % (rc, err))
        d = ranks_json(args, chk, "real duplicates, --rank-from order", dups, "--rank-from", "order")
        compare(chk, "real duplicates, --rank-from order", d, recount_ranks(dups, "--rank-from", "order"))
    # every real trace with communication kernels, alone, against the recount
    for r, n, p in multi:
        d = ranks_json(args, chk, "real %s" % n, [p])
        compare(chk, "real %s" % n, d, recount_ranks([p]))
    return chk.done()


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--real", help="the real traces folder: check those instead of the generated sets")
    p.add_argument("--hta", help="another folder of real traces (with --real)")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_ranks")
    if args.real is not None:
        return real(args, chk)
    w = args.work
    check_tp(args, chk, w, "tp2", 2, 1, "--steps", 3, "--layers", 4, "--seed", 3)
    tp4, _, _ = check_tp(args, chk, w, "tp4", 4, 0, "--steps", 4, "--layers", 4, "--seed", 5)
    check_tp(args, chk, w, "tp8", 8, 5, "--steps", 4, "--layers", 6, "--seed", 11)
    _, _, d = check_tp(args, chk, w, "tp4cpu", 4, 2, "--steps", 3, "--layers", 4, "--slow-what", "cpu",
                       "--slow-factor", 12)
    if d:
        chk.check(any(s["slowest_compute"] != 2 for s in d["steps"])
                  and all(s["compute_spread_ns"] * 10 < s["skew_ns"] for s in d["steps"]),
                  "cpu: the ranks' compute is alike (spread < skew / 10) and the most of it is not always "
                  "the late rank's: a compute rule would name another rank",
                  str([(s["slowest_compute"], s["compute_spread_ns"], s["skew_ns"]) for s in d["steps"]]))
        rc, out, err = tixtest.tix(args, "summary", *[r["trace"] for r in d["ranks"]], "--by", "rank")
        chk.check("not the rank with the most compute" in out, "cpu: the text says so", out[-400:])
    known_files = known(args, chk, w)
    rules(args, chk, w, tp4)
    missing_step(args, chk, w, tp4)
    jobs(args, chk, w, known_files)
    usage(args, chk, known_files[0])
    d = ranks_json(args, chk, "--step 2", tp4, "--step", 2)
    if d:
        chk.check(d["step"] == 2 and [s["index"] for s in d["steps"]] == [2]
                  and all(len(r["steps"]) == 1 and r["steps"][0]["index"] == 2 for r in d["ranks"])
                  and d["straggler"]["of"] == 1, "--step 2: that step only, counted alone")
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

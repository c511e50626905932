#!/usr/bin/env python3
"""The findings recount against HTA and TraceLens themselves (their goldens).

    recount_goldens.py [--traces DIR] [--hta-golden F] [--tracelens-golden F]

Stdlib only: it reads tests/ref/golden/hta.json and tracelens.json (what
hta_reference.py and tracelens_reference.py printed) and the traces in
../shared/traces (exit 77 when that folder is absent), and recounts with
recount_findings.py.  Tolerance: 1% of HTA's figure + 2 us (HTA works in
float64 microseconds, and rounds idle to 0.01 us); TraceLens: 1%.

HTA (get_temporal_breakdown, get_idle_time_breakdown), from the golden's
record with rounding off and the last step kept (exact_ts_with_last_step,
or the one record that is already that).  The recount runs on HTA's event
set where tix's differs by design only in which GPU work is kept:
  * with two or more ProfilerStep names HTA keeps only GPU work whose
    correlation id is a CPU row's that starts by the end of the last step
    (GPU work launched before the trace goes): applied here, by giving the
    recount that subset;
  and the trace (or the figure) is skipped, with the reason printed, where
  the definitions differ by design (docs/FINDINGS.md section 1):
  * rows that are not GPU work but carry a stream arg (cuda_sync rows, CPU
    ops with "stream"): HTA's breakdown counts them -> breakdown skipped;
  * a GPU work event HTA's name regexes class otherwise than tix's rules ->
    compute and non-compute skipped (span and idle do not depend on it);
  * a stream on which an event starts before the latest end seen (HTA
    measures from the previous row's end) -> that stream's causes skipped;
  * an event set that still differs from HTA's count -> that trace skipped.
Compared: span (kernel_time), idle, compute, non-compute = comm + memory;
per stream host wait, kernel wait, other.

TraceLens (per op instance, aten::mm, aten::addmm, aten::bmm): FLOPs of the
recount's op model equal TraceLens's within 1%; bytes too where both know
the dtype's size; GPU time beneath the op (the sum of its GPU work's
durations) within 1% of TraceLens's kernel time (the union of the GPU work
it links through ac2g flows) where TraceLens linked the same number of
events and they do not overlap; instances TraceLens linked nothing to are
counted and skipped.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recount  # noqa: E402
import recount_findings as rf  # noqa: E402
import recount_opmodel as om  # noqa: E402

SKIP = 77
REL, ABS_US = 0.01, 2.0
PROFILER_STEP = re.compile(r"^ProfilerStep#\d+")
# HTA's kernel classes (hta/common/types.py, used with re.match on the name as written)
HTA_COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
HTA_MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
HTA_NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
    r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
    r"|(^collective_subgraph_execution)")
# TraceLens's dtype sizes for the GEMM bytes (TL PerfModel/utils.py): where they
# and docs/FINDINGS.md agree the bytes are compared
TL_SIZES = {"double": 8, "long int": 8, "float": 4, "int": 4, "c10::Half": 2, "c10::BFloat16": 2,
            "c10::Float8_e4m3fn": 1, "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2": 1,
            "unsigned char": 1, "signed char": 1}


class Check:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def ok(self, cond, what, detail=""):
        if cond:
            self.passed += 1
            print("ok    " + what)
        else:
            self.failed += 1
            print("FAIL  %s%s" % (what, ": " + detail if detail else ""))

    def skip(self, what, why):
        self.skipped += 1
        print("skip  %s: %s" % (what, why))

    def close(self, what, got_us, want_us):
        tol = REL * abs(want_us) + ABS_US
        self.ok(got_us is not None and abs(got_us - want_us) <= tol,
                "%s %.3f us (HTA %.3f us, tolerance %.3f)" % (
                    what, got_us if got_us is not None else float("nan"), want_us, tol))


def hta_record(rec):
    """The record with rounding off and the last step kept."""
    if "exact_ts_with_last_step" in rec:
        return rec["exact_ts_with_last_step"]
    if rec.get("last_step_dropped") and rec.get("ts_rounded_to_us"):
        return None
    if rec.get("last_step_dropped"):
        return rec.get("with_last_step")
    if rec.get("ts_rounded_to_us"):
        return rec.get("exact_ts")
    return rec


def hta_kind(g):
    name = g.raw or g.name
    if HTA_COMM.match(name):
        return "comm"
    if HTA_MEMORY.match(name):
        return "memory"
    return "other" if HTA_NOT_COMPUTE.match(name) else "compute"


def hta_event_set(tr):
    """The GPU work HTA keeps with include_last_profiler_step=True, and a
    reason when a GPU event would be kept twice (HTA joins on correlation)."""
    names = {e.name for e in tr.cpu if PROFILER_STEP.match(e.name)}
    if len(names) < 2:
        return list(tr.gpu), None
    last_end = max(e.end for e in tr.cpu if PROFILER_STEP.match(e.name))
    rows = {}
    for ln in tr.launches:
        if ln.ts <= last_end:
            rows[ln.corr] = rows.get(ln.corr, 0) + 1
    kept = [g for g in tr.gpu if g.corr is not None and rows.get(g.corr)]
    twice = sum(1 for g in kept if rows[g.corr] > 1)
    return kept, ("%d GPU events whose correlation id two CPU rows carry" % twice) if twice else None


KIND_LABEL = {"sync": "cuda_sync", "other": "other-category"}


def rows_with_stream_arg(tr):
    """Rows HTA's breakdown counts that are not GPU work: a stream arg other than -1."""
    out = []
    for e in tr.events:
        if e.kind in recount.GPU_WORK or not isinstance(e.args.get("stream"), (int, str)):
            continue
        s = recount.int_arg(e.args.get("stream"))
        if s is not None and s != -1:
            out.append(e)
    return out


def describe(rows):
    n = {}
    for e in rows:
        k = KIND_LABEL.get(e.kind, e.kind)
        n[k] = n.get(k, 0) + 1
    return ", ".join("%d %s" % (c, k) for k, c in sorted(n.items()))


def check_hta_trace(chk, key, rec, tr):
    label = "hta %s" % key
    v = hta_record(rec)
    if v is None:
        chk.skip(label, "the golden has no record with rounding off and the last step kept "
                 "(regenerate it with --also-last-step)")
        return
    temporal = v.get("temporal")
    gpu, why = hta_event_set(tr)
    if why:
        chk.skip(label, "HTA counts %s twice" % why)
        return
    extra = rows_with_stream_arg(tr)
    if extra and len(gpu) != len(tr.gpu):
        chk.skip(label, "HTA's last-step filter on %s rows with a stream arg is not emulated" % describe(extra))
        return
    if not gpu and not extra:
        chk.ok(isinstance(temporal, dict) and "error" in temporal,
               "%s: no GPU work in the recount, and HTA found none (its error: %s)" % (
                   label, (temporal or {}).get("error", "")[:60]))
        return
    ranks = rec.get("ranks") or []
    if len(ranks) != 1 or not isinstance(temporal, dict) or "error" in temporal:
        chk.skip(label, "not one rank with a breakdown in the golden (%s)" % str(temporal)[:80])
        return
    rank = str(ranks[0])
    t = temporal[rank]
    # docs/FINDINGS.md 1, "GPU work only": HTA's breakdown also counts the rows
    # with a stream arg that are not GPU work; the recount is given them too
    hta_set = gpu + extra
    if extra:
        print("note  %s: the breakdown over HTA's event set: the GPU work and %s rows that carry a "
              "stream arg (docs/FINDINGS.md 1, 'GPU work only')" % (label, describe(extra)))
    b = rf.Findings(tr, hta_set).breakdown(None, None)
    if t["events_counted"] != len(hta_set):
        chk.skip(label + " breakdown", "HTA counted %d events, the recount %d on HTA's event set"
                 % (t["events_counted"], len(hta_set)))
    else:
        chk.close("%s: span" % label, b["span_ns"] / 1000, t["kernel_time_us"])
        chk.close("%s: idle" % label, b["idle_ns"] / 1000, t["idle_us"])
        differ = [g for g in hta_set if hta_kind(g) != rf.gpu_class(g)
                  and "compute" in (hta_kind(g), rf.gpu_class(g))]
        if differ:
            chk.skip(label + " compute", "%d events HTA's name regexes class otherwise (%s: HTA %s, "
                     "the recount %s; docs/FINDINGS.md 1, 'Classes by tix's rules', 'GPU work only')" % (
                         len(differ), differ[0].name[:50], hta_kind(differ[0]), rf.gpu_class(differ[0])))
        else:
            chk.close("%s: compute" % label, b["compute_ns"] / 1000, t["compute_us"])
            chk.close("%s: non-compute (comm + memory)" % label,
                      (b["comm_ns"] + b["memory_ns"]) / 1000, t["non_compute_us"])
    if gpu:
        check_hta_idle(chk, label, v.get("idle"), rank, rf.Findings(tr, gpu).idle_rows(None), gpu)


def check_hta_idle(chk, label, idle, rank, idle_rows, gpu):
    if not isinstance(idle, dict) or "error" in idle or rank not in idle:
        chk.skip(label + " idle", "no per-stream idle in the golden (%s)" % str(idle)[:80])
        return
    hta = idle[rank]
    rows = {}
    for r in idle_rows:
        rows.setdefault(r["stream_id"], []).append(r)
    overlapping, float_moves = {}, {}
    origin = min(e.ts for e in gpu) / 1000
    for key, (evs, gaps) in rf.Streams(gpu).streams.items():
        cur, n = None, 0
        for e in evs:
            if cur is not None and e.ts < cur:
                n += 1
            cur = e.end if cur is None else max(cur, e.end)
        overlapping[key[1]] = overlapping.get(key[1], 0) + n
        float_moves[key[1]] = float_decisions(gaps, origin)
    chk.ok(sorted(int(s) for s in hta) == sorted(s for s in rows if s is not None),
           "%s: the same streams (%s)" % (label, ", ".join(sorted(hta))),
           "recount %s" % sorted(rows, key=str))
    for s, cell in sorted(hta.items(), key=lambda kv: int(kv[0])):
        mine = rows.get(int(s))
        if not mine:
            continue
        if len(mine) > 1:
            chk.skip("%s stream %s" % (label, s), "stream %s on %d devices (HTA merges them)" % (s, len(mine)))
            continue
        if overlapping.get(int(s)):
            chk.skip("%s stream %s" % (label, s), "%d events start before the stream's latest end "
                     "(HTA measures from the previous row's end; docs/FINDINGS.md 2)" % overlapping[int(s)])
            continue
        r = mine[0]
        got = {"host": r["host_wait_ns"] or 0, "kernel": r["kernel_wait_ns"], "other": r["other_ns"]}
        moves = float_moves.get(int(s), [])
        if moves:
            for ns, mine_cause, hta_cause in moves:
                got[mine_cause] -= ns
                got[hta_cause] += ns
            print("note  %s stream %s: %d gaps (%.3f us) counted under the cause HTA's float64 "
                  "microseconds give them (the launch call starts within their grain of the gap's start)"
                  % (label, s, len(moves), sum(m[0] for m in moves) / 1000))
        chk.close("%s stream %s: host wait" % (label, s), got["host"] / 1000, cell["host_wait"])
        chk.close("%s stream %s: kernel wait" % (label, s), got["kernel"] / 1000, cell["kernel_wait"])
        chk.close("%s stream %s: other" % (label, s), got["other"] / 1000, cell["other"])


def float_decisions(gaps, origin):
    """[(ns, recount's cause, HTA's)] for the gaps whose host-wait test comes
    out otherwise in HTA's arithmetic: float64 microseconds, shifted so the
    first event is at 0, launch start > previous end.  Only ties within the
    float grain of the trace's timestamps differ (epoch-based ts, ~1.7e15 us,
    have a grain of 0.25 us)."""
    out = []
    for g in gaps:
        ln = g.next.link
        if ln is None:
            continue
        host = (ln.ts / 1000 - origin) > (g.prev.ts / 1000 - origin) + g.prev.dur / 1000
        theirs = "host" if host else ("kernel" if g.ns < rf.KERNEL_WAIT_NS else "other")
        if (g.cause == "host") != host:
            out.append((g.ns, g.cause, theirs))
    return out


# ---------------------------------------------------------------------------
# TraceLens

GEMMS = ("aten::mm", "aten::addmm", "aten::bmm")


def check_tracelens_trace(chk, key, rec, tr):
    label = "tracelens %s" % key
    if "error" in rec:
        chk.skip(label, "TraceLens: %s" % rec["error"][:100])
        return
    rows = [r for r in rec["ops"] if r["name"] in GEMMS]
    if not rows:
        chk.skip(label, "no aten::mm / addmm / bmm rows")
        return
    ops = {}
    for e in tr.cpu:
        if e.name in GEMMS:
            ops.setdefault((e.name, recount.plain(e.pid), recount.plain(e.tid),
                            recount.int_arg(e.args.get("External id"))), []).append(e)
    beneath = rf.gpu_beneath(tr)
    spans = {}
    for g in tr.gpu:
        if g.link is not None:
            for a in tr.ancestors_of(g.link):
                if a.name in GEMMS:
                    spans.setdefault(a.i, []).append((g.ts, g.end))
    bad_flops, bad_bytes, bad_time = [], [], []
    n_flops = n_bytes = n_time = 0
    unlinked = differ = 0
    for r in rows:
        cands = ops.get((r["name"], r["pid"], r["tid"], r["external_id"]), [])
        cands = [e for e in cands if abs(e.ts / 1000 - r["ts"]) < 1.0]
        if len(cands) != 1:
            bad_flops.append("%s ts %s: %d recount instances match" % (r["name"], r["ts"], len(cands)))
            continue
        e = cands[0]
        m = om.model(e.name, e.args)
        n_flops += 1
        if m is None or m["flops"] is None or abs(m["flops"] - r["flops"]) > REL * r["flops"]:
            bad_flops.append("%s %s: %s vs %s" % (e.name, r["input_dims"], m and m["flops"], r["flops"]))
        dtype = (e.args.get("Input type") or [None, None])[0 if e.name != "aten::addmm" else 1]
        if m is not None and m["bytes"] is not None and om.DTYPE_BYTES.get(dtype) == TL_SIZES.get(dtype):
            n_bytes += 1
            if abs(m["bytes"] - r["bytes"]) > REL * r["bytes"]:
                bad_bytes.append("%s %s: %s vs %s" % (e.name, r["input_dims"], m["bytes"], r["bytes"]))
        if not r["kernels"]:
            unlinked += 1
            continue
        ns, nev = beneath.get(e.i, [0, 0])
        sp = sorted(spans.get(e.i, []))
        overlap = any(sp[k + 1][0] < max(x[1] for x in sp[:k + 1]) for k in range(len(sp) - 1))
        if nev != r["kernels"] or overlap:
            differ += 1
            continue
        n_time += 1
        if abs(ns / 1000 - r["kernel_time_us"]) > REL * r["kernel_time_us"]:
            bad_time.append("%s ts %s: %.3f us vs %.3f us" % (e.name, r["ts"], ns / 1000, r["kernel_time_us"]))
    chk.ok(not bad_flops and n_flops == len(rows), "%s: FLOPs of %d GEMM instances within 1%%" % (label, n_flops),
           "; ".join(bad_flops[:4]) + (" (+%d)" % (len(bad_flops) - 4) if len(bad_flops) > 4 else ""))
    chk.ok(not bad_bytes, "%s: bytes of %d GEMM instances within 1%%" % (label, n_bytes), "; ".join(bad_bytes[:4]))
    chk.ok(n_time > 0 and not bad_time, "%s: GPU time beneath %d GEMM instances within 1%%" % (label, n_time),
           "; ".join(bad_time[:4]) + (" (+%d)" % (len(bad_time) - 4) if len(bad_time) > 4 else ""))
    if unlinked:
        chk.skip("%s: %d GEMM instances" % (label, unlinked), "TraceLens linked no GPU work to them "
                 "(no ac2g flow, or recorded while a CUDA graph was captured)")
    if differ:
        chk.skip("%s: %d GEMM instances' time" % (label, differ), "TraceLens linked another number of "
                 "GPU events, or they overlap (TraceLens takes their union)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", default=os.path.join(HERE, "..", "..", "..", "shared", "traces"))
    ap.add_argument("--hta-golden", default=os.path.join(HERE, "golden", "hta.json"))
    ap.add_argument("--tracelens-golden", default=os.path.join(HERE, "golden", "tracelens.json"))
    args = ap.parse_args()
    if not os.path.isdir(args.traces):
        print("skip  no trace folder %s (the shared corpus, beside the checkout)" % args.traces)
        return SKIP
    with open(args.hta_golden) as f:
        hta = json.load(f)["traces"]
    with open(args.tracelens_golden) as f:
        tl = json.load(f)["traces"]
    chk = Check()
    for key in sorted(set(hta) | set(tl)):
        path = os.path.join(args.traces, *key.split("/"))
        if not os.path.exists(path):
            chk.ok(False, "%s: the golden's trace is in %s" % (key, args.traces))
            continue
        tr = recount.load_trace(path)
        if key in hta:
            check_hta_trace(chk, key, hta[key], tr)
        if key in tl:
            check_tracelens_trace(chk, key, tl[key], tr)
    print("recount_goldens: %d passed, %d failed, %d skipped" % (chk.passed, chk.failed, chk.skipped))
    return 1 if chk.failed else 0


if __name__ == "__main__":
    sys.exit(main())

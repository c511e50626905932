"""The findings' figures (docs/FINDINGS.md sections 1, 2, 4 and 9), recounted.

    recount.py --findings TRACE [--step N]
    recount.py TRACE --by op --model [--step N]

Written from docs/FINDINGS.md and the trace alone; it shares no code with
tix (index/build/breakdown.c, op_shapes.c, index/findings.c, perf_model.c).
It uses recount.py's own readings of the rules underneath (events and kinds,
R1 ancestors, R3 steps, R4 before the trace, R5 launch calls, the
communication names of --by ranks) and recount_opmodel.py for section 3.

Sets.  GPU work = kernels, memcpys, memsets.  Each event's bucket: "before"
(R4), its step (R3), or none (launched between steps).  The trace's figures
are over all GPU work; a step's over its bucket's; `(before the trace)` is a
per_step entry of its own (step null, wall = the span of its events, as in
summary --by step).

Breakdown (section 1) over a set: span = last end - first start; U(X) the
union of [start, end); busy, compute = |U(compute)|, comm = |U(comm) -
U(compute)|, memory = |U(memory) - U(compute) - U(comm)|, idle = span - busy,
overlap = |U(comm) & U(compute)|, gpu_ns = the sum of durations.  An empty
set has every time 0.

Gaps.  The events of a set (over all streams), or of one stream of the
trace, swept in row order (start, then duration descending, then input
order): a gap [a, b) opens where an event starts after the latest end seen
so far (a); its next event is the first in that order starting at b, its
previous event the first to reach that latest end.  A zero-length event is
an event: it ends the gap before it and opens the next one.  Cause: host
wait when the next event's launch call starts after a; else kernel wait
when b - a < 30 us; else other.
  Over all streams: the gaps of the set, so host + kernel + other = idle.
  Per stream (the `idle` rows): a stream is (args device, args stream), or
  the event's (pid, tid) when it has no integer stream arg; its gaps are
  swept over all the trace's events of the stream, and a gap belongs to a
  step when both its previous and its next event do.  `gaps` counts them.
  Sync-covered: a gap over all streams whose next event's launch thread has
  a synchronising call (a cuda / cu / hip call whose name holds
  Synchronize, or a Memcpy / Memset without Async) with start <= a < end;
  idle_sync_ns is the whole gap.
  Launch-bound: a kernel (memcpys and memsets are not) whose duration is
  less than its launch call's.  A stretch: >= 8 consecutive events of one
  stream, all launch-bound, each after the previous one with a host-wait
  gap of its own (no overlap, no touching).  launch_bound_kernels counts the
  kernels of stretches in the set; launch_bound_idle_ns their stream gaps
  (a gap in a step when both its events are).
  A trace none of whose GPU work has a launch call has no host-wait, sync or launch-bound
  figure: idle_host_ns, idle_sync_ns, launch_bound_* and every host_wait_ns
  are null (its gaps are kernel wait or other).

Op-shape groups (section 4): each GPU work event with a launch call goes to
the innermost modelled op among its launch call's ancestors (cpu_op or
user_annotation, step markers excluded); a group is (name, json.dumps of
Input Dims, of Input type, of Concrete Inputs).  calls: the distinct instances among the
selection's events; calls_per_step: the instances among events of real
steps over the number of steps (with --step: calls); flops / bytes: of the
earliest instance (start, input order); kernels: the names of the events,
by their time in the group, largest first, then by name.  Sorted by gpu_ns,
largest first, then op, dims, types.

--by op --model: per op name, over its instances that are modelled and have
GPU work beneath (GPU work whose launch call the instance contains; with
--step, the step's): model_calls, model_gpu_ns (the sum of those durations),
flops and bytes (their sums; null when one instance's is null),
flops_per_s / bytes_per_s = sum / (model_gpu_ns / 1e9) (null when the sum
is null or the time 0).  An op name with no such instance has all six
null.  peak_fraction and bound need the device table: not recounted.
"""

import json

import recount as rc
import recount_opmodel as om

KERNEL_WAIT_NS = 30000          # TIX_KERNEL_WAIT_NS
LAUNCH_RUN_MIN = 8              # TIX_LAUNCH_RUN_MIN
SYNC_PREFIXES = ("cuda", "hip", "cu")   # the API's prefix, then the call
BREAKDOWN_KEYS = ("wall_ns", "span_ns", "busy_ns", "compute_ns", "comm_ns", "memory_ns", "idle_ns",
                  "overlap_ns", "idle_host_ns", "idle_kernel_ns", "idle_other_ns", "idle_sync_ns",
                  "launch_bound_idle_ns", "launch_bound_kernels", "gpu_ns")
BEFORE = "before"


def is_sync_call(name):
    """Section 2: a runtime or driver call (cuda..., cu..., hip...) whose name
    contains Synchronize, or that is a Memcpy or Memset without Async."""
    for p in SYNC_PREFIXES:
        if name.startswith(p):
            rest = name[len(p):]
            return "Synchronize" in rest or (
                (rest.startswith("Memcpy") or rest.startswith("Memset")) and "Async" not in rest)
    return False


def gpu_class(g):
    if g.kind in ("memcpy", "memset"):
        return "memory"
    return "comm" if rc.is_comm(g) else "compute"


def _dumps_or_none(v):
    """An op's Concrete Inputs as JSON text, None when it has none."""
    return None if v is None else json.dumps(rc.plain(v))


def row_key(e):
    return (e.ts, -e.dur, e.i)


# ---------------------------------------------------------------------------
# intervals

def merged(spans):
    """Disjoint sorted [s, e) covering the spans (touching ones merge)."""
    out = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def length(iv):
    return sum(e - s for s, e in iv)


def inter_len(a, b):
    """|A & B| of two merged lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


# ---------------------------------------------------------------------------
# gaps

class Gap:
    __slots__ = ("a", "b", "prev", "next", "cause")

    def __init__(self, a, b, prev, nxt):
        self.a, self.b, self.prev, self.next = a, b, prev, nxt
        if nxt.link is not None and nxt.link.ts > a:
            self.cause = "host"
        elif b - a < KERNEL_WAIT_NS:
            self.cause = "kernel"
        else:
            self.cause = "other"

    @property
    def ns(self):
        return self.b - self.a


def sweep(events):
    """(events in row order, the gaps between them, the gap before each
    event's index or None)."""
    evs = sorted(events, key=row_key)
    gaps, before = [], [None] * len(evs)
    cur = cur_ev = None
    for k, e in enumerate(evs):
        if cur is not None and e.ts > cur:
            gap = Gap(cur, e.ts, cur_ev, e)
            gaps.append(gap)
            before[k] = gap
        if cur is None or e.end > cur:
            cur, cur_ev = e.end, e
    return evs, gaps, before


def stream_key(g):
    dev, sid = rc.int_arg(g.args.get("device")), rc.int_arg(g.args.get("stream"))
    if sid is None:
        return (dev, None, g.track)
    return (dev, sid, None)


def launch_bound(e):
    return e.kind == "kernel" and e.link is not None and e.dur < e.link.dur


class Streams:
    """Every stream of the GPU work given: its gaps and launch-bound stretches."""

    def __init__(self, gpu):
        by = {}
        for g in gpu:
            by.setdefault(stream_key(g), []).append(g)
        self.streams = {}
        self.stretches = []     # (members, gaps between them)
        for key, evs in by.items():
            evs, gaps, before = sweep(evs)
            self.streams[key] = (evs, gaps)
            run, run_gaps = [], []
            for k, e in enumerate(evs):
                gap = before[k]
                if (launch_bound(e) and run and gap is not None and gap.cause == "host"
                        and gap.prev is run[-1]):
                    run.append(e)
                    run_gaps.append(gap)
                    continue
                self._close(run, run_gaps)
                run, run_gaps = ([e], []) if launch_bound(e) else ([], [])
            self._close(run, run_gaps)

    def _close(self, run, gaps):
        if len(run) >= LAUNCH_RUN_MIN:
            self.stretches.append((run, gaps))


# ---------------------------------------------------------------------------
# the figures

class Findings:
    """The figures of a trace, over its GPU work or over the subset gpu (the
    HTA check gives HTA's event set)."""

    def __init__(self, tr, gpu=None):
        self.tr = tr
        self.gpu = tr.gpu if gpu is None else gpu
        # section 7: without any GPU work linked to a launch call, host wait
        # and what follows from it are unknown
        self.has_launches = any(g.link is not None for g in self.gpu)
        self.streams = Streams(self.gpu)
        self.sync = {}
        for e in tr.cpu:
            if e.kind in rc.LAUNCH_KINDS and is_sync_call(e.name):
                self.sync.setdefault(e.track, []).append((e.ts, e.end))
        self.bucket = {}
        for g in self.gpu:
            self.bucket[g.i] = BEFORE if g.i in tr.before else tr.step_of(g)

    def inside(self, sel, *evs):
        return sel is None or all(self.bucket[e.i] == sel for e in evs)

    def selected(self, sel):
        return [g for g in self.gpu if self.inside(sel, g)]

    def sync_covered(self, gap):
        ln = gap.next.link
        if ln is None:
            return False
        return any(s <= gap.a < e for s, e in self.sync.get(ln.track, ()))

    def breakdown(self, sel, wall):
        """The section 9 breakdown keys over the selection (None: the trace)."""
        evs = self.selected(sel)
        u = {c: merged((g.ts, g.end) for g in evs if gpu_class(g) == c)
             for c in ("compute", "comm", "memory")}
        u_all = merged((g.ts, g.end) for g in evs)
        busy = length(u_all)
        span = max(g.end for g in evs) - min(g.ts for g in evs) if evs else 0
        compute = length(u["compute"])
        comm_all = length(u["comm"])
        overlap = inter_len(u["comm"], u["compute"])
        cc = merged([tuple(x) for x in u["compute"]] + [tuple(x) for x in u["comm"]])
        memory = length(u["memory"]) - inter_len(u["memory"], cc)
        _, gaps, _ = sweep(evs)
        idle = {"host": 0, "kernel": 0, "other": 0}
        for gap in gaps:
            idle[gap.cause] += gap.ns
        lb_idle = lb_kernels = 0
        for run, run_gaps in self.streams.stretches:
            lb_kernels += sum(1 for e in run if self.inside(sel, e))
            lb_idle += sum(g.ns for g in run_gaps if self.inside(sel, g.prev, g.next))
        known = self.has_launches
        return {
            "wall_ns": wall, "span_ns": span, "busy_ns": busy, "compute_ns": compute,
            "comm_ns": comm_all - overlap, "memory_ns": memory, "idle_ns": span - busy,
            "overlap_ns": overlap,
            "idle_host_ns": idle["host"] if known else None,
            "idle_kernel_ns": idle["kernel"], "idle_other_ns": idle["other"],
            "idle_sync_ns": sum(g.ns for g in gaps if self.sync_covered(g)) if known else None,
            "launch_bound_idle_ns": lb_idle if known else None,
            "launch_bound_kernels": lb_kernels if known else None,
            "gpu_ns": sum(g.dur for g in evs),
        }

    def idle_rows(self, sel):
        rows = []
        for key, (evs, gaps) in self.streams.streams.items():
            if not any(self.inside(sel, e) for e in evs):
                continue
            dev, sid, track = key
            mine = [g for g in gaps if self.inside(sel, g.prev, g.next)]
            by = {"host": 0, "kernel": 0, "other": 0}
            for g in mine:
                by[g.cause] += g.ns
            rows.append({"stream": "stream %s" % (sid if sid is not None else rc.plain(track[3])),
                         "device": dev, "stream_id": sid, "gaps": len(mine),
                         "host_wait_ns": by["host"] if self.has_launches else None,
                         "kernel_wait_ns": by["kernel"], "other_ns": by["other"]})
        rows.sort(key=lambda r: (r["device"] is None, r["device"] or 0, r["stream_id"] is None,
                                 r["stream_id"] or 0, r["stream"]))
        return rows

    def per_step(self):
        tr = self.tr
        out = []
        if any(b == BEFORE for b in self.bucket.values()):
            evs = self.selected(BEFORE)
            row = {"step": None, "name": rc.BEFORE_TRACE}
            row.update(self.breakdown(BEFORE, max(g.end for g in evs) - min(g.ts for g in evs)))
            out.append(row)
        for i, s in enumerate(tr.steps):
            row = {"step": i, "name": s["name"]}
            row.update(self.breakdown(i, s["wall_ns"]))
            out.append(row)
        return out

    # -- section 4 -------------------------------------------------------------
    def leaf(self, g, cache):
        """The innermost modelled op above g's launch call, or None."""
        ln = g.link
        if ln.i not in cache:
            found = None
            for a in reversed(self.tr.ancestors_of(ln)):
                if a.kind in rc.OP_KINDS and a.i not in self.tr.marker_ids and op_model(a) is not None:
                    found = a
                    break
            cache[ln.i] = found
        return cache[ln.i]

    def op_shapes(self, sel):
        cache, groups = {}, {}
        nsteps = len(self.tr.steps)
        for g in self.gpu:
            if g.link is None or not self.inside(sel, g):
                continue
            op = self.leaf(g, cache)
            if op is None:
                continue
            key = (op.name, json.dumps(rc.plain(op.args.get("Input Dims"))),
                   json.dumps(rc.plain(op.args.get("Input type"))),
                   _dumps_or_none(op.args.get("Concrete Inputs")))
            grp = groups.setdefault(key, {"ops": {}, "in_steps": set(), "events": 0, "ns": 0,
                                          "kernels": {}})
            grp["ops"][op.i] = op
            if isinstance(self.bucket[g.i], int):
                grp["in_steps"].add(op.i)
            grp["events"] += 1
            grp["ns"] += g.dur
        # kernels: over the trace whatever the selection (a step's group
        # keeps its trace's list, docs/FINDINGS.md section 9)
        for g in self.gpu:
            if g.link is None:
                continue
            op = self.leaf(g, cache)
            if op is None:
                continue
            key = (op.name, json.dumps(rc.plain(op.args.get("Input Dims"))),
                   json.dumps(rc.plain(op.args.get("Input type"))),
                   _dumps_or_none(op.args.get("Concrete Inputs")))
            if key in groups:
                k = groups[key]["kernels"]
                k[g.name] = k.get(g.name, 0) + g.dur
        rows = []
        for (name, dims, types, _concrete), grp in groups.items():
            first = min(grp["ops"].values(), key=lambda o: (o.ts, o.i))
            m = op_model(first)
            calls = len(grp["ops"])
            rows.append({
                "op": name, "dims": dims, "types": types, "concrete": _concrete, "class": m["class"],
                "calls": calls,
                "calls_per_step": float(calls) if sel is not None else len(grp["in_steps"]) / nsteps,
                "gpu_events": grp["events"], "gpu_ns": grp["ns"], "flops": m["flops"],
                "bytes": m["bytes"],
                "kernels": [k for k, _ in sorted(grp["kernels"].items(), key=lambda kv: (-kv[1], kv[0]))],
            })
        rows.sort(key=lambda r: (-r["gpu_ns"], r["op"], r["dims"], r["types"]))
        return rows

    def report(self, step=None):
        tr = self.tr
        out = {"trace": tr.path, "steps": len(tr.steps), "step": step}
        if step is None:
            out["breakdown"] = self.breakdown(None, None)
            out["per_step"] = self.per_step()
        else:
            out["breakdown"] = self.breakdown(step, tr.steps[step]["wall_ns"])
        out["idle"] = self.idle_rows(step)
        out["op_shapes"] = self.op_shapes(step)
        return out


def op_model(op):
    """The section 3 model of one CPU op instance (cached on the event)."""
    cache = _MODELS.setdefault(id(op), (op, om.model(op.name, op.args)))
    return cache[1]


_MODELS = {}


def findings(tr, step=None):
    if step is not None and not 0 <= step < len(tr.steps):
        raise ValueError("no step %d (the trace has %d)" % (step, len(tr.steps)))
    return Findings(tr).report(step)


# ---------------------------------------------------------------------------
# --by op --model

MODEL_KEYS = ("model_calls", "model_gpu_ns", "flops", "bytes", "flops_per_s", "bytes_per_s")


def _sum(vals):
    return None if any(v is None for v in vals) else sum(vals)


def gpu_beneath(tr, step=None):
    """{op instance index: [GPU ns, GPU events] launched beneath it} (cpu_op
    and user_annotation instances, step markers excluded; with step: the
    step's GPU work only)."""
    beneath = {}
    for g in tr.gpu:
        if g.link is None or (step is not None and (g.i in tr.before or tr.step_of(g) != step)):
            continue
        for a in tr.ancestors_of(g.link):
            if a.kind in rc.OP_KINDS and a.i not in tr.marker_ids:
                b = beneath.setdefault(a.i, [0, 0])
                b[0] += g.dur
                b[1] += 1
    return beneath


def by_op_model(tr, step=None):
    """recount.by_op's rows with the model columns (section 9, last paragraph)."""
    rows = rc.by_op(tr, step=step)["ops"]
    beneath = gpu_beneath(tr, step)
    per_name = {}
    for e in tr.cpu:
        if e.i in beneath and op_model(e) is not None:
            per_name.setdefault(e.name, []).append((op_model(e), beneath[e.i][0]))
    for r in rows:
        inst = per_name.get(r["name"])
        if not inst:
            r.update({k: None for k in MODEL_KEYS})
            continue
        ns = sum(t for _, t in inst)
        flops, nbytes = _sum([m["flops"] for m, _ in inst]), _sum([m["bytes"] for m, _ in inst])
        r.update({"model_calls": len(inst), "model_gpu_ns": ns, "flops": flops, "bytes": nbytes,
                  "flops_per_s": flops / (ns / 1e9) if flops is not None and ns > 0 else None,
                  "bytes_per_s": nbytes / (ns / 1e9) if nbytes is not None and ns > 0 else None})
    return {"ops": rows}

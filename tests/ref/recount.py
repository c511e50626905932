#!/usr/bin/env python3
"""Reference recount of a Chrome-trace / Kineto JSON file, for checking tix.

    recount.py TRACE --by kernel|step|op [--step-marker REGEX]

Reads TRACE (plain or gzip, JSON Object or Array Format) with python's json
module and prints JSON to stdout.  It shares no code with tix or with the
test generator.  The definitions below are the contract tix implements.

Times
  ts and dur are microseconds in the JSON, possibly fractional, possibly
  strings.  The number text is parsed exactly (parse_float=decimal.Decimal)
  and converted to integer nanoseconds with round-half-up(value * 1000).
  Only "ph": "X" events have durations; all other phases are ignored.

GPU events
  X events whose cat, case-insensitive, is kernel, gpu_memcpy or gpu_memset;
  their kind is kernel, memcpy or memset.  Grouped by (kind, name).

Launch call of a GPU event
  The X event with cat cuda_runtime, cuda_driver or runtime (case-insensitive)
  whose args.correlation equals the GPU event's args.correlation.

--by kernel
  {"kernels": [{"name", "kind", "instances", "total_ns", "min_ns", "max_ns",
  "med_ns", "avg_ns", "stddev_ns"}], "total_gpu_ns"}, sorted by total_ns
  descending, then name, then kind.  med_ns: the middle of the sorted
  durations; for an even count the mean of the two middle ones rounded down.
  avg_ns = total // instances.  stddev_ns: population standard deviation
  rounded to the nearest integer.

--by step
  Step markers are X events on the CPU side (any cat except
  gpu_user_annotation, kernel, gpu_memcpy, gpu_memset) whose name matches the
  first pattern, in this order, that matches at least one event:
    1. --step-marker REGEX (re.search), when given;
    2. ^ProfilerStep#\\d+$;
    3. ^step\\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)\\b.*\\]$   (SGLang);
    4. ^execute_(model|.*)$                                (vLLM);
  otherwise the whole trace is one step, named "(whole trace)", from the
  smallest ts to the largest ts + dur of all X events.
  Steps are ordered by (start, name) and indexed from 0.  A GPU event belongs
  to the step whose [ts, ts + dur) contains the ts of its launch call, or its
  own ts when it has no launch call; when steps overlap, the one that starts
  last.  GPU events in no step are ignored.
  {"steps": [{"index", "name", "start_ns", "wall_ns", "kernels" (kind
  kernel), "gpu_events" (all kinds), "kernel_ns", "top_kernel", "top_ns"}]}
  top_kernel: the kernel name (kind kernel) with the largest total in the
  step, ties broken by name; null and 0 when the step has no kernel.

--by op
  For every name of a CPU op (X, cat cpu_op or user_annotation), the total
  duration of the GPU events whose launch call lies inside at least one
  instance of that name: same pid and tid, op.ts <= launch.ts <= op.ts+op.dur.
  A GPU event counts once per distinct op name around its launch.
  {"ops": [{"name", "gpu_ns", "gpu_events"}]} sorted by gpu_ns descending,
  then name; names with gpu_ns 0 are left out.

--partial
  A truncated file (plain or gzip) is read up to the last whole event of the
  traceEvents array; a warning with the character offset of the cut goes to
  stderr.  Without --partial such a file is an error (exit 2).

--summary
  Runs --by kernel/step/op on each TRACE and prints one line per file (used
  as the sanity check over ../shared/traces).
"""

import argparse
import decimal
import gzip
import json
import math
import re
import sys
import zlib
from bisect import bisect_right
from decimal import Decimal, ROUND_HALF_UP

GPU_KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver", "runtime"}
OP_CATS = {"cpu_op", "user_annotation"}
NOT_STEP_CATS = {"gpu_user_annotation", "kernel", "gpu_memcpy", "gpu_memset"}
STEP_PATTERNS = [
    r"^ProfilerStep#\d+$",
    r"^step\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)\b.*\]$",
    r"^execute_(model|.*)$",
]
WHOLE_TRACE = "(whole trace)"

decimal.getcontext().prec = 60
_ONE = Decimal(1)
_THOUSAND = Decimal(1000)


def to_ns(v):
    """Microseconds (int, Decimal or numeric string) -> integer nanoseconds."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, str):
        try:
            v = Decimal(v.strip())
        except decimal.InvalidOperation:
            return None
    if isinstance(v, Decimal):
        if not v.is_finite():
            return None
        return int((v * _THOUSAND).quantize(_ONE, rounding=ROUND_HALF_UP))
    return None


def read_bytes(path, partial):
    """The file's bytes, gunzipped when it starts with the gzip magic.  With
    partial, a gzip stream cut short yields what could be decompressed."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\x1f\x8b":
        return data
    if not partial:
        return gzip.decompress(data)
    d = zlib.decompressobj(wbits=31)
    out = [d.decompress(data)]
    try:
        out.append(d.flush())
    except zlib.error:
        pass
    return b"".join(out)


def salvage_events(text):
    """Events of a truncated trace: every whole event of the traceEvents array
    (or of a bare array) before the point where the text stops parsing."""
    dec = json.JSONDecoder(parse_float=Decimal)
    ws = " \t\r\n"
    i = 0
    while i < len(text) and text[i] in ws:
        i += 1
    if text[i:i + 1] == "{":
        k = text.find('"traceEvents"')
        if k < 0:
            return [], i
        i = text.find("[", k)
        if i < 0:
            return [], k
    elif text[i:i + 1] != "[":
        return [], i
    i += 1
    events = []
    while True:
        while i < len(text) and text[i] in ws:
            i += 1
        if text[i:i + 1] == "]":
            return events, None
        try:
            ev, j = dec.raw_decode(text, i)
        except ValueError:
            return events, i
        events.append(ev)
        i = j
        while i < len(text) and text[i] in ws:
            i += 1
        if text[i:i + 1] == ",":
            i += 1
        elif text[i:i + 1] != "]":
            return events, i


def load_events(path, partial=False):
    data = read_bytes(path, partial)
    text = data.decode("utf-8", "surrogateescape")
    try:
        doc = json.loads(text, parse_float=Decimal)
    except ValueError:
        if not partial:
            raise
        events, stop = salvage_events(text)
        print("recount.py: %s: truncated or invalid JSON; using the %d whole events before "
              "offset %s" % (path, len(events), stop), file=sys.stderr)
        return [e for e in events if isinstance(e, dict)]
    if isinstance(doc, dict):
        events = doc.get("traceEvents", [])
    elif isinstance(doc, list):
        events = doc
    else:
        events = []
    return [e for e in events if isinstance(e, dict)]


def cat_of(e):
    c = e.get("cat")
    return c.lower() if isinstance(c, str) else ""


def args_of(e):
    a = e.get("args")
    return a if isinstance(a, dict) else {}


def key_id(v):
    """Ids (correlation, pid, tid) as comparable keys: numbers and strings."""
    if isinstance(v, Decimal) and v == v.to_integral_value():
        return int(v)
    return v


class Trace:
    """The X events of a trace, classified once."""

    def __init__(self, events):
        self.gpu = []       # (kind, name, ts_ns, dur_ns, correlation)
        self.launch = {}    # correlation -> (pid, tid, ts_ns)
        self.ops = []       # (pid, tid, ts_ns, end_ns, name)
        self.steps_src = []  # (name, ts_ns, dur_ns) candidates for step markers
        self.x_min = None
        self.x_max = None
        for e in events:
            if e.get("ph") != "X":
                continue
            ts = to_ns(e.get("ts"))
            dur = to_ns(e.get("dur"))
            if ts is None:
                continue
            if dur is None:
                dur = 0
            name = e.get("name")
            name = name if isinstance(name, str) else ("" if name is None else str(name))
            cat = cat_of(e)
            self.x_min = ts if self.x_min is None else min(self.x_min, ts)
            self.x_max = ts + dur if self.x_max is None else max(self.x_max, ts + dur)
            if cat in GPU_KINDS:
                corr = key_id(args_of(e).get("correlation"))
                self.gpu.append((GPU_KINDS[cat], name, ts, dur, corr))
                continue
            if cat in LAUNCH_CATS:
                corr = key_id(args_of(e).get("correlation"))
                if corr is not None and corr not in self.launch:
                    self.launch[corr] = (key_id(e.get("pid")), key_id(e.get("tid")), ts)
            if cat in OP_CATS:
                self.ops.append((key_id(e.get("pid")), key_id(e.get("tid")), ts, ts + dur, name))
            if cat not in NOT_STEP_CATS:
                self.steps_src.append((name, ts, dur))

    def launch_of(self, corr):
        if corr is None:
            return None
        return self.launch.get(corr)


# ----------------------------------------------------------------------------

def by_kernel(tr):
    groups = {}
    for kind, name, ts, dur, corr in tr.gpu:
        groups.setdefault((kind, name), []).append(dur)
    rows = []
    total_all = 0
    for (kind, name), durs in groups.items():
        durs.sort()
        n = len(durs)
        total = sum(durs)
        total_all += total
        if n % 2:
            med = durs[n // 2]
        else:
            med = (durs[n // 2 - 1] + durs[n // 2]) // 2
        # population variance, exact in integers: (n*S2 - S1^2) / n^2
        num = n * sum(d * d for d in durs) - total * total
        std = round(math.sqrt(num) / n) if num > 0 else 0
        rows.append({"name": name, "kind": kind, "instances": n, "total_ns": total,
                     "min_ns": durs[0], "max_ns": durs[-1], "med_ns": med,
                     "avg_ns": total // n, "stddev_ns": std})
    rows.sort(key=lambda r: (-r["total_ns"], r["name"], r["kind"]))
    return {"kernels": rows, "total_gpu_ns": total_all}


def find_steps(tr, user_regex=None):
    patterns = []
    if user_regex is not None:
        patterns.append(("search", re.compile(user_regex)))
    for p in STEP_PATTERNS:
        patterns.append(("match", re.compile(p)))
    for how, rx in patterns:
        test = rx.search if how == "search" else rx.match
        found = [(ts, name, dur) for name, ts, dur in tr.steps_src if test(name)]
        if found:
            found.sort(key=lambda s: (s[0], s[1]))
            return [{"name": name, "start_ns": ts, "wall_ns": dur} for ts, name, dur in found]
    if tr.x_min is None:
        return []
    return [{"name": WHOLE_TRACE, "start_ns": tr.x_min, "wall_ns": tr.x_max - tr.x_min}]


def by_step(tr, user_regex=None):
    steps = find_steps(tr, user_regex)
    starts = [s["start_ns"] for s in steps]
    acc = [{"kernels": 0, "gpu_events": 0, "kernel_ns": 0, "by_name": {}} for _ in steps]

    def step_of(t):
        i = bisect_right(starts, t) - 1
        while i >= 0:
            s = steps[i]
            if s["start_ns"] <= t < s["start_ns"] + s["wall_ns"]:
                return i
            i -= 1
        return None

    for kind, name, ts, dur, corr in tr.gpu:
        ln = tr.launch_of(corr)
        i = step_of(ln[2] if ln is not None else ts)
        if i is None:
            continue
        a = acc[i]
        a["gpu_events"] += 1
        if kind == "kernel":
            a["kernels"] += 1
            a["kernel_ns"] += dur
            a["by_name"][name] = a["by_name"].get(name, 0) + dur
    out = []
    for i, (s, a) in enumerate(zip(steps, acc)):
        top, top_ns = None, 0
        if a["by_name"]:
            top, top_ns = min(a["by_name"].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append({"index": i, "name": s["name"], "start_ns": s["start_ns"],
                    "wall_ns": s["wall_ns"], "kernels": a["kernels"],
                    "gpu_events": a["gpu_events"], "kernel_ns": a["kernel_ns"],
                    "top_kernel": top, "top_ns": top_ns})
    return {"steps": out}


def by_op(tr):
    # launches per thread: (ts, gpu dur) for every GPU event with a launch call
    launches = {}
    for kind, name, ts, dur, corr in tr.gpu:
        ln = tr.launch_of(corr)
        if ln is None:
            continue
        launches.setdefault((ln[0], ln[1]), []).append((ln[2], dur))
    ops = {}
    for pid, tid, ts, end, name in tr.ops:
        ops.setdefault((pid, tid), []).append((ts, end, name))
    totals = {}
    for thread, ls in launches.items():
        ol = sorted(ops.get(thread, []))
        ls.sort()
        active = []     # ops that started at or before the current launch
        j = 0
        for t, dur in ls:
            while j < len(ol) and ol[j][0] <= t:
                active.append(ol[j])
                j += 1
            active = [o for o in active if o[1] >= t]
            for name in {o[2] for o in active}:
                g = totals.setdefault(name, [0, 0])
                g[0] += dur
                g[1] += 1
    rows = [{"name": n, "gpu_ns": g[0], "gpu_events": g[1]}
            for n, g in totals.items() if g[0] > 0]
    rows.sort(key=lambda r: (-r["gpu_ns"], r["name"]))
    return {"ops": rows}


def summary_line(path, tr, regex):
    k = by_kernel(tr)
    s = by_step(tr, regex)["steps"]
    o = by_op(tr)["ops"]
    nk = sum(r["instances"] for r in k["kernels"])
    linked = sum(1 for g in tr.gpu if tr.launch_of(g[4]) is not None)
    top = k["kernels"][0] if k["kernels"] else None
    line = ("%s: %d GPU events (%d linked to a launch), %d names, total %.3f ms; %d step(s)%s; "
            "%d op names with GPU time"
            % (path, nk, linked, len(k["kernels"]), k["total_gpu_ns"] / 1e6, len(s),
               " [%s .. %s]" % (s[0]["name"], s[-1]["name"]) if s else "", len(o)))
    if top:
        line += "\n    top: %s x%d %.3f ms (%.1f%%) %s" % (
            top["kind"], top["instances"], top["total_ns"] / 1e6,
            100.0 * top["total_ns"] / max(1, k["total_gpu_ns"]), top["name"][:90])
    if o:
        line += "\n    top op: %s %.3f ms in %d GPU events" % (o[0]["name"], o[0]["gpu_ns"] / 1e6,
                                                           o[0]["gpu_events"])
    return line


def main(argv=None):
    p = argparse.ArgumentParser(description="Reference recount of a Kineto trace (see module doc).")
    p.add_argument("trace", nargs="+", help="trace file (.json or .json.gz); several with --summary")
    p.add_argument("--by", choices=["kernel", "step", "op"], default="kernel")
    p.add_argument("--step-marker", metavar="REGEX", help="step marker regex (re.search)")
    p.add_argument("--summary", action="store_true", help="one line per trace instead of JSON")
    p.add_argument("--partial", action="store_true",
                   help="accept a truncated trace: count the whole events before the cut")
    a = p.parse_args(argv)
    if a.step_marker is not None:
        try:
            re.compile(a.step_marker)
        except re.error as e:
            p.error("bad --step-marker: %s" % e)
    if a.summary:
        for path in a.trace:
            print(summary_line(path, Trace(load_events(path, a.partial)), a.step_marker))
        return 0
    if len(a.trace) != 1:
        p.error("one TRACE unless --summary")
    try:
        tr = Trace(load_events(a.trace[0], a.partial))
    except (OSError, ValueError, EOFError, zlib.error) as e:
        print("recount.py: %s: %s" % (a.trace[0], e), file=sys.stderr)
        return 2
    if a.by == "kernel":
        res = by_kernel(tr)
    elif a.by == "step":
        res = by_step(tr, a.step_marker)
    else:
        res = by_op(tr)
    json.dump(res, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

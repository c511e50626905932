#!/usr/bin/env python3
"""Reference recount of a Chrome-trace / Kineto JSON file, for checking tix.

    recount.py TRACE --by kernel|step|op|launches|warnings|graph
               [--step-marker REGEX] [--graph-capture FILE|DIR ...] [--partial]
    recount.py TRACE --by op [--model] [--step N]
    recount.py --findings TRACE [--step N]
    recount.py --summary TRACE...
    recount.py --by ranks TRACE... [--rank-from info|name|order]

Reads TRACE (plain or gzip, JSON Object or Array Format) with python's json
module and prints JSON to stdout.  It shares no code with tix or with the
test generator.  The definitions below are the contract tix implements
(notes/RULES-issue8.md, rules R1-R9; "R" numbers below refer to them).

Times
  ts and dur are microseconds in the JSON, possibly fractional, possibly
  strings.  The number text is parsed exactly (parse_float=decimal.Decimal)
  and converted to integer nanoseconds with round-half-up(value * 1000).
  "X" events have their dur (absent, unparsable or negative: 0); a "B" and
  the next "E" on the same (pid, tid) (the innermost open "B") make one
  event of duration E.ts - B.ts (0 if negative), placed where its "E" is;
  a ts beyond int64 nanoseconds drops the event, such a dur reads as 0;
  a "B" whose "E" never comes has duration 0 and is placed after all
  events.  Events without a usable ts, and other phases (i, C, M, ...), are
  not events here.  Input order (for ties) is that placement order.

Kinds (tix's reading of "cat", ASCII case-insensitive)
  cpu_op | operator -> cpu_op; user_annotation; python_function -> python;
  cuda_runtime | runtime | *_runtime -> runtime; cuda_driver | driver;
  kernel; gpu_memcpy | memcpy; gpu_memset | memset; cuda_sync -> sync;
  gpu_user_annotation -> gpu_annotation; no cat and pid "CPU functions" ->
  cpu_op; anything else -> other.
  CPU-side: cpu_op, user_annotation, python, runtime, driver, other.
  GPU work: kernel, memcpy, memset.  Launch calls: runtime and driver
  events with an args "correlation" that is an integer >= 0 (JSON number or
  digit string).
  Names starting "_Z" are demangled with c++filt (binutils) when it is
  there; every name below (groups, ops, steps, parents, capture launches)
  is the demangled one.

R1 Ancestors (parents)
  Row order on a track: start ascending, then duration descending, then
  input order.  C contains X iff same track (pid, tid as given: 7 and "7"
  differ), C is CPU-side, C comes before X in row order, C.start <= X.start,
  X starts inside C (X.start < C.end, or X.start == C.start) and X.end <=
  C.end + 1000 ns (Kineto's microsecond rounding): an event starting when or
  after C ended is a sibling even if it ends within the slack.
  The ancestors of X: every CPU-side event containing it, outermost first
  (in row order).

R5 Launch call of a GPU event
  GPU events carry args "correlation" c.  Among the launch calls with
  correlation c (any process), the one with the greatest start <= the GPU
  event's start; if none precedes it, the earliest.  GPU work still without
  a launch: an ac2g flow whose "s" (the first launch call on its (pid, tid)
  starting at its ts) and "f" (the first GPU event on its (pid, tid)
  starting at its ts, which must be GPU work without a launch) share an id
  links them (one "s" and one "f" per id is the defined case).
  A graph replay: GPU work whose launch call's name contains "GraphLaunch".

R4 Before the trace
  GPU work without a launch call whose correlation is >= 0 and below the
  smallest correlation of any launch call, or that starts before the first
  CPU-side event.  It is in no step.

R3 Steps
  Candidates: events of kind cpu_op, user_annotation, python or other.
  Rules, the first matching at least one candidate name wins (a full match,
  "." matching newlines): --step-marker REGEX (re.search) replaces all of
    1. ^ProfilerStep#[0-9]+$
    2. ^step\\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)([] ,].*)?$
    3. ^execute_([0-9]+_)?context_[0-9]+(\\(.*\\))?_generation_[0-9]+(\\(.*\\))?$
    4. ^execute_model$
  Markers sorted by (start, -duration, input order); a marker starting
  before the end of the previous kept one is skipped.  No marker: one step
  "(whole trace)" from the smallest start to the largest end of all events.
  GPU work belongs to the step whose [start, start + dur) holds its launch
  call's start (its own start when it has no launch; never when before the
  trace).
  {"step_rule", "steps": [{"index", "name", "start_ns", "wall_ns",
  "kernels" (kind kernel), "gpu_events" (GPU work), "kernel_ns", "gpu_ns"
  (all GPU work), "gpu_busy_ns" (union of the GPU work intervals),
  "top_kernel", "top_ns"}], "before_trace": null or the same fields with
  index null, name "(before the trace)", start_ns / wall_ns the span of its
  events}.  top_kernel: the kernel name with the largest total in the row,
  ties by name; null and 0 when none.

--by kernel
  {"kernels": [{"name", "kind", "instances", "total_ns", "min_ns", "max_ns",
  "med_ns", "avg_ns", "stddev_ns"}], "total_gpu_ns"} over all GPU work
  (before the trace included), grouped by (kind, name), sorted by total_ns
  descending, then name, then kind.  med_ns: the middle of the sorted
  durations; for an even count the mean of the two middle ones rounded
  down.  avg_ns = total // instances.  stddev_ns: population standard
  deviation rounded to the nearest integer.

R2 --by op
  Each GPU work event with a launch call counts once for each distinct name
  among the ancestors of its launch call of kind cpu_op or user_annotation,
  the kept step markers excluded.  {"ops": [{"name", "gpu_ns",
  "gpu_events", "calls", "cpu_ns"}]} for the names with gpu_events > 0,
  sorted by gpu_ns descending, then name.  calls / cpu_ns: the cpu_op /
  user_annotation events of the name that are not kept markers, and their
  summed durations.

R6 Traffic (per GPU work event)
  (a) memcpy / memset with an integer args "bytes" >= 0: basis "bytes".
  (b) a kernel whose launch call's innermost cpu_op ancestor is named
  aten::copy_, has list-valued Input Dims and Input type with at least two
  entries, and has exactly one GPU work event launched beneath it (GPU work
  whose launch call it contains): bytes = sum over its first two inputs of
  numel (product of the dims; [] is 1) x element size, basis "aten::copy_".
  Sizes, after dropping a "c10::" prefix (names compared exactly), in the
  C++ spellings Kineto writes (float 4, double 8, long int 8, int 4, short
  int 2, bool 1, unsigned/signed char 1, Half 2, BFloat16 2, Float8_* 1,
  complex<float> 8, ...; see ELEM_SIZE) or the ScalarType names (Float 4,
  Double 8, Long 8, Int 4, Short 2, Char 1, Byte 1, Bool 1); any other type:
  no bytes.  Else bytes null, basis null.
  bandwidth = bytes / (dur_ns / 1e9) B/s (null when dur is 0).  peak: the
  top-level deviceProperties entry whose "id" is the event's args "device"
  (else the first entry), matched by its "name", "numSms" and
  "totalGlobalMem" in the bandwidth column of docs/FINDINGS.md section 10
  (PEAKS below); else null.  bandwidth > peak:
  bandwidth null, over_peak true; else over_peak false.
  {"bytes", "bandwidth_Bps", "peak_Bps", "basis", "over_peak"}.

R7 Graph attribution (--graph-capture FILE|DIR ..., a folder: its *.json
  and *.json.gz files by name; files in the order given)
  Windows: on each thread of a capture trace, a runtime/driver event whose
  name contains "StreamBeginCapture" opens a window (a second one while open
  restarts it) that the next one containing "StreamEndCapture" closes.  Its
  launches: runtime/driver events on that thread starting in [begin.start,
  end.start] whose name contains "LaunchKernel", in (start, -dur, input)
  order; each with its args "kernel" (demangled) or none, and its frames:
  its ancestors (R1, in the capture trace) of kind cpu_op or
  user_annotation, outermost first, each {"name", "kind", "input_dims",
  "input_types"} (null when absent).  A window is named when every launch
  has a kernel name.  Label: N of the innermost user_annotation ancestor of
  the begin event matching ^capture_([0-9]+).  Window order: file order,
  then begin start, then thread order of first appearance.
  Replays: each launch call of the replay trace whose name contains
  "GraphLaunch", with its GPU work in (start, input) order; its batch: N of
  "bs=N" in its step's name, else of ^execute_N_.
  Choice, per replay of n events (names r) and per window of m launches:
    named windows with the same name sequence -> "exact" (pairs i-i);
    else the named windows with the best score LCS(r, w) / max(n, m), if
    >= 0.9 -> pairs from the LCS (the DP over suffixes, walked from the
    front: take a match when it keeps the optimum, else skip the replay
    kernel when that keeps it, else the launch) -> "aligned"; then each
    unpaired replay kernel i, in order, takes the unpaired launch of the same
    name nearest to its expected position e = j' + (i - i') ((i', j') the
    last pair before i, else (-1, -1)) within |j - e| <= 8 (ties: smaller
    j) -> "reordered"; the rest "none".
    Ties between windows: the smallest label >= the replay's batch, then
    window order.
    else unnamed windows with m == n: one -> "positional" (pairs i-i);
    several: the ones with the smallest label >= the batch; if that leaves
    one, "positional", else "ambiguous" (no attribution).
    else "none".
  Per GPU work event: capture_match (null unless a replay), captured_under
  (the frames of its launch, null when not attributed), capture_source (the
  capture file's base name, or null).
  --by graph: {"kernels", "attributed", "exact", "aligned", "reordered",
  "positional", "ambiguous", "none", "not_attributed"} (tix info's line).

--by launches
  {"launches": [per GPU work event in (start, input) order: {"kind", "name",
  "mangled_name" (the name as written when it starts with _Z, else null),
  "start_ns", "dur_ns", "device" (args), "step" (index or null), "before_trace", "launch":
  null or {"name", "pid", "tid", "start_ns", "dur_ns"}, "graph_replay",
  "parents": the launch call's ancestors (R1) [{"name", "kind", "start_ns",
  "dur_ns", "input_dims", "input_types"}] ([] without a launch), "traffic"
  (R6), "args": {"grid", "block", "registers", "shared_mem", "bytes",
  "graph_id"} as in the trace (null when absent), "capture_match",
  "captured_under", "capture_source"}]}.  Kind labels: cpu_op, annotation,
  python, runtime, driver, other.

--by warnings (R9: what tix must say on every open)
  {"truncated_at" (character offset of the cut, or null), "colliding_ids"
  (correlation ids carried by more than one launch call), "launch_calls",
  "gpu_events" (GPU work), "no_gpu_activity" (launch calls > 0 and no GPU
  event of any GPU kind), "before_trace", "not_attributed" (with captures)}

--partial
  A truncated file (plain or gzip) is read up to the last whole event of the
  traceEvents array (or of a bare array); a warning with the character
  offset of the cut goes to stderr.  Without --partial such a file is an
  error (exit 2).

--by ranks TRACE... (several traces of one run, one per rank; issue 11)
  Rank of each trace, the first rule that gives every trace one (or the
  one --rank-from names): "distributedInfo": the top-level distributedInfo
  object's "rank" (an integer, or a string of digits; >= 0); "name": in
  the file's base name, for the first of the keys rank, TP, DP, PP, EP
  (ASCII case-insensitive) present in every name whose numbers all differ,
  the digits after the key and one optional "-" or "_", the key not
  preceded by a letter or digit (first occurrence); "order": 0, 1, ... as
  given.  Two traces with one rank: exit 1 (with a key of the name rule
  present in every name, the first such key decides, duplicates or not).
  Communication: GPU work of kind kernel whose name (as written or
  demangled), lowercased, contains one of COMM_WORDS.
  Per trace and step (R3; GPU work by its step, before the trace left out):
  wall_ns (the step's), gpu_busy_ns (union of all its GPU work), compute_ns
  (union of the non-communication GPU work), comm_ns (union of the
  communication kernels), overlap_ns = max(0, compute + comm - busy),
  gpu_events, comm_kernels.
  Steps aligned by index; per step over the ranks that have it: ranks,
  compute_spread_ns and slowest_compute (max compute, the lowest rank on
  ties) when two or more; when also some comm kernel: skew_ns = max - min
  comm_ns, wait_ns per rank = comm - min comm, straggler = the rank with the
  least comm (lowest on ties) when skew > 0; comm_mismatch when the ranks'
  comm_kernels differ.  "straggler": the rank that is straggler of the most
  steps (lowest on ties), with per-rank counts.

--findings, --by op --model (issue 18, docs/FINDINGS.md)
  The breakdown, idle causes, op-shape groups and the op model columns:
  recount_findings.py and recount_opmodel.py, whose docstrings are their
  contract.  --step N: of step N (R3's numbering) only.

--summary
  One line per trace file (used as the sanity check over ../shared/traces).
"""

import argparse
import decimal
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import zlib
from bisect import bisect_right
from decimal import Decimal, ROUND_HALF_UP

WHOLE_TRACE = "(whole trace)"
BEFORE_TRACE = "(before the trace)"
SLACK_NS = 1000
INT64 = (1 << 63) - 1

CPU_SIDE = {"cpu_op", "user_annotation", "python", "runtime", "driver", "other"}
GPU_WORK = {"kernel", "memcpy", "memset"}
GPU_ANY = GPU_WORK | {"sync", "gpu_annotation"}
LAUNCH_KINDS = {"runtime", "driver"}
OP_KINDS = {"cpu_op", "user_annotation"}
MARKER_KINDS = {"cpu_op", "user_annotation", "python", "other"}
LABEL = {"cpu_op": "cpu_op", "user_annotation": "annotation", "python": "python",
         "runtime": "runtime", "driver": "driver", "other": "other"}

STEP_RULES = [
    ("ProfilerStep#N", r"^ProfilerStep#[0-9]+$"),
    ("SGLang step[...]", r"^step\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)([] ,].*)?$"),
    ("vLLM execute_context", r"^execute_([0-9]+_)?context_[0-9]+(\(.*\))?_generation_[0-9]+(\(.*\))?$"),
    ("vLLM execute_model", r"^execute_model$"),
]

# Kineto writes the C++ names of the element types ("float", "long int",
# "c10::BFloat16"); the ScalarType names are accepted too.
ELEM_SIZE = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4,
             "Short": 2, "Char": 1, "Byte": 1, "Bool": 1,
             "float": 4, "double": 8, "long int": 8, "long": 8, "int64_t": 8, "int": 4,
             "short int": 2, "short": 2, "bool": 1, "unsigned char": 1, "signed char": 1,
             "char": 1, "unsigned int": 4, "unsigned short": 2, "unsigned long": 8,
             "uint8_t": 1, "int8_t": 1, "complex<float>": 8, "complex<double>": 16,
             "complex<c10::Half>": 4, "qint8": 1, "quint8": 1, "qint32": 4, "quint4x2": 1,
             "Float4_e2m1fn_x2": 1}
# docs/FINDINGS.md section 10, the bandwidth column: (name must hold all of
# these, CUs (numSms) or None, memory [lo, hi) GB or None, TB/s or None for
# "known not to be known"); first match wins.
PEAKS = [
    (("GB200",), None, None, 8.0),
    (("GH200",), None, (1, 120), 4.0),
    (("GH200",), None, (120, 1e9), 4.9),
    (("H200", "NVL"), None, None, 4.8),
    (("H200",), None, None, 4.8),
    (("H100", "NVL"), None, None, 3.9),
    (("H100", "PCIe"), None, None, 2.0),
    (("H100",), None, None, 3.35),
    (("B200",), None, None, 8.0),
    (("L40S",), None, None, 0.864),
    (("RTX 5090",), None, None, 1.792),
    (("RTX PRO 6000", "Max-Q"), None, None, None),
    (("RTX PRO 6000",), None, None, 1.792),
    (("A100", "PCIe"), None, (60, 1e9), 1.935),
    (("A100",), None, (60, 1e9), 2.039),
    (("A100",), None, None, 1.555),
    (("V100S",), None, None, 1.134),
    (("V100", "PCIE"), None, None, 0.9),
    (("V100",), None, None, 0.9),
    (("MI325X",), None, None, 6.0),
    (("MI300X",), None, None, 5.3),
    ((), 304, (180, 220), 5.3),            # MI300X with an empty name
    (("MI250",), 110, None, 1.6384),
    (("MI250",), 104, None, 1.6384),
    (("AMD Radeon Graphics",), 110, (60, 70), 1.6384),
    (("AMD Radeon Graphics",), 104, (60, 70), 1.6384),
]
ARG_KEYS = [("grid", "grid"), ("block", "block"), ("registers", "registers per thread"),
            ("shared_mem", "shared memory"), ("bytes", "bytes"), ("graph_id", "graph id")]

decimal.getcontext().prec = 60
_ONE = Decimal(1)
_THOUSAND = Decimal(1000)


# ---------------------------------------------------------------------------
# reading

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
    (or of a bare array) before the point where the text stops parsing.
    Returns (events, offset of the cut or None)."""
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


def load_doc(path, partial=False):
    """(events, top-level object or {}, cut offset or None)."""
    data = read_bytes(path, partial)
    text = data.decode("utf-8", "surrogateescape")
    try:
        doc = json.loads(text, parse_float=Decimal)
    except ValueError:
        if not partial:
            raise
        events, stop = salvage_events(text)
        if stop is None:
            stop = len(text)
        print("recount.py: %s: truncated or invalid JSON; using the %d whole events before "
              "offset %s" % (path, len(events), stop), file=sys.stderr)
        top = {}
        if text.lstrip()[:1] == "{":
            m = re.search(r'"deviceProperties"\s*:\s*', text)
            if m:
                try:
                    top["deviceProperties"] = json.JSONDecoder(parse_float=Decimal).raw_decode(
                        text, m.end())[0]
                except ValueError:
                    pass
        return [e for e in events if isinstance(e, dict)], top, stop
    if isinstance(doc, dict):
        events = doc.get("traceEvents", [])
        top = doc
    elif isinstance(doc, list):
        events, top = doc, {}
    else:
        events, top = [], {}
    if not isinstance(events, list):
        events = []
    return [e for e in events if isinstance(e, dict)], top, None


def load_events(path, partial=False):
    return load_doc(path, partial)[0]


# ---------------------------------------------------------------------------
# names

_DEMANGLED = {}
_CXXFILT = shutil.which("c++filt")


def demangler_available():
    return _CXXFILT is not None


def demangle_all(names):
    """Fills the cache for every name starting with _Z, with one c++filt run."""
    todo = sorted({n for n in names if n.startswith("_Z") and n not in _DEMANGLED
                   and "\n" not in n and "\r" not in n})
    if not todo:
        return
    if _CXXFILT is None:
        for n in todo:
            _DEMANGLED[n] = n
        return
    p = subprocess.run([_CXXFILT], input="\n".join(todo) + "\n", stdout=subprocess.PIPE,
                       universal_newlines=True, errors="surrogateescape", check=False)
    out = p.stdout.split("\n")
    for k, n in enumerate(todo):
        _DEMANGLED[n] = out[k] if k < len(out) and out[k] else n


def demangle(n):
    if not n.startswith("_Z"):
        return n
    if n not in _DEMANGLED:
        demangle_all([n])
    return _DEMANGLED.get(n, n)


# ---------------------------------------------------------------------------
# events

def kind_of(cat, pid):
    if not isinstance(cat, str):
        if isinstance(pid, str) and pid.lower() == "cpu functions":
            return "cpu_op"
        return "other"
    c = cat.lower()
    if c in ("cpu_op", "operator"):
        return "cpu_op"
    if c == "user_annotation":
        return "user_annotation"
    if c == "python_function":
        return "python"
    if c in ("cuda_runtime", "runtime") or c.endswith("_runtime"):
        return "runtime"
    if c in ("cuda_driver", "driver"):
        return "driver"
    if c == "kernel":
        return "kernel"
    if c in ("gpu_memcpy", "memcpy"):
        return "memcpy"
    if c in ("gpu_memset", "memset"):
        return "memset"
    if c == "cuda_sync":
        return "sync"
    if c == "gpu_user_annotation":
        return "gpu_annotation"
    return "other"


def key_id(v):
    """Ids (pid, tid, flow id) as comparable keys: numbers and strings."""
    if isinstance(v, Decimal) and v.is_finite() and v == v.to_integral_value():
        return int(v)
    return v


def int_arg(v):
    """An integer args value: JSON integer, integral number or digit string."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, Decimal):
        return int(v) if v.is_finite() and v == v.to_integral_value() else None
    if isinstance(v, str) and re.fullmatch(r"\s*-?[0-9]+\s*", v):
        return int(v)
    return None


def corr_of(args):
    c = int_arg(args.get("correlation"))
    return c if c is not None and c >= 0 else None


def plain(v):
    """A JSON value with Decimals turned into ints / floats (for output)."""
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


class Ev:
    __slots__ = ("i", "kind", "name", "raw", "pid", "tid", "track", "ts", "dur", "end", "args", "corr",
                 "anc", "link", "by_flow")

    def __init__(self, kind, name, pid, tid, ts, dur, args):
        self.kind = kind
        self.name = name
        self.raw = None
        self.pid = pid
        self.tid = tid
        self.track = track_key(pid, tid)
        self.ts = ts
        self.dur = dur
        self.end = ts + dur
        self.args = args
        self.corr = None
        self.anc = None
        self.link = None
        self.by_flow = False


def track_key(pid, tid):
    """A thread or stream: (pid, tid) as given, 7 and "7" apart."""
    return (type(pid).__name__, pid, type(tid).__name__, tid)


def _name(e):
    n = e.get("name")
    return n if isinstance(n, str) else ""


class Trace:
    """The events of a trace, classified and linked once (R1, R3, R4, R5)."""

    def __init__(self, events, top=None, path=None, truncated_at=None, marker=None):
        self.path = path
        self.top = top or {}
        self.truncated_at = truncated_at
        self.marker = marker
        evs = []
        open_b = []         # (track, Ev) in push order
        flows = {}          # id -> ([s...], [f...]) of ac2g flows
        raw_names = set()
        for e in events:
            ph = e.get("ph")
            if not isinstance(ph, str) or not ph:
                continue
            p = ph[0]
            if p == "M":
                continue
            ts = to_ns(e.get("ts"))
            if ts is None or not -INT64 <= ts <= INT64:
                continue
            pid, tid = key_id(e.get("pid")), key_id(e.get("tid"))
            if p in "sf":
                if "id" in e and isinstance(e.get("cat"), str) and e["cat"].lower() == "ac2g":
                    fl = flows.setdefault(key_id(e["id"]), ([], []))
                    fl[0 if p == "s" else 1].append((track_key(pid, tid), ts))
                continue
            if p == "E":
                tk = track_key(pid, tid)
                for k in range(len(open_b) - 1, -1, -1):
                    if open_b[k][0] == tk:
                        b = open_b.pop(k)[1]
                        b.dur = max(0, ts - b.ts)
                        b.end = b.ts + b.dur
                        evs.append(b)
                        break
                continue
            if p not in "XB":
                continue
            args = e.get("args")
            args = args if isinstance(args, dict) else {}
            kind = kind_of(e.get("cat"), e.get("pid"))
            dur = 0
            if p == "X":
                d = to_ns(e.get("dur"))
                dur = d if d is not None and 0 <= d <= INT64 else 0
            name = _name(e)
            raw_names.add(name)
            ev = Ev(kind, name, pid, tid, ts, dur, args)
            if kind in LAUNCH_KINDS or kind in GPU_ANY:
                ev.corr = corr_of(args)
            if p == "B":
                open_b.append((ev.track, ev))
            else:
                evs.append(ev)
        evs.extend(b for _, b in open_b)
        for k, ev in enumerate(evs):
            ev.i = k
        demangle_all(raw_names)
        for ev in evs:
            if ev.name.startswith("_Z"):
                ev.raw = ev.name
                ev.name = demangle(ev.name)
        self.events = evs
        self.cpu = [e for e in evs if e.kind in CPU_SIDE]
        self.gpu = [e for e in evs if e.kind in GPU_WORK]
        self.launches = [e for e in evs if e.kind in LAUNCH_KINDS and e.corr is not None]
        self._link(flows)
        self._ancestors([e for e in evs if e.kind in LAUNCH_KINDS])
        self._before_trace()
        self._steps(marker)

    # -- R5 -------------------------------------------------------------------
    def _link(self, flows):
        by_corr = {}
        for ln in self.launches:
            by_corr.setdefault(ln.corr, []).append(ln)
        self.colliding_ids = sum(1 for v in by_corr.values() if len(v) > 1)
        for v in by_corr.values():
            v.sort(key=lambda x: (x.ts, x.i))
        for g in self.gpu:
            if g.corr is None:
                continue
            c = by_corr.get(g.corr)
            if not c:
                continue
            best = None
            for ln in c:
                if ln.ts <= g.ts:
                    best = ln
            g.link = best if best is not None else c[0]
        if flows and any(g.link is None for g in self.gpu):
            rows = {}
            for e in self.events:
                rows.setdefault((e.track, e.ts), []).append(e)
            for lst in rows.values():
                lst.sort(key=lambda x: (-x.dur, x.i))
            for fid, (ss, fs) in flows.items():
                if not ss or not fs:
                    continue
                ftrack, fts = fs[0]
                dst = next((e for e in rows.get((ftrack, fts), []) if e.kind in GPU_ANY), None)
                if dst is None or dst.kind not in GPU_WORK or dst.link is not None:
                    continue
                strack, sts = ss[-1]
                src = next((e for e in rows.get((strack, sts), []) if e.kind in LAUNCH_KINDS), None)
                if src is not None:
                    dst.link = src
                    dst.by_flow = True

    # -- R1 -------------------------------------------------------------------
    def _ancestors(self, queries):
        """Sets .anc (outermost first) on every query event (CPU-side)."""
        want = {}
        for q in queries:
            want.setdefault(q.track, set()).add(q.i)
        by_track = {}
        for e in self.cpu:
            if e.track in want:
                by_track.setdefault(e.track, []).append(e)
        for tk, lst in by_track.items():
            lst.sort(key=lambda x: (x.ts, -x.dur, x.i))
            qs = want[tk]
            active = []
            cap = 256
            k = 0
            n = len(lst)
            while k < n:
                s = lst[k].ts
                j = k
                while j < n and lst[j].ts == s:
                    active.append(lst[j])
                    j += 1
                group = lst[k:j]
                if any(x.i in qs for x in group) or len(active) > cap:
                    active = [a for a in active if a.end + SLACK_NS >= s]
                    cap = max(256, 2 * len(active))
                for x in group:
                    if x.i in qs:
                        # active is in row order: the candidates are the ones before x
                        pos = next(p for p in range(len(active) - 1, -1, -1) if active[p] is x)
                        x.anc = [a for a in active[:pos]
                                 if (x.ts < a.end or x.ts == a.ts) and x.end <= a.end + SLACK_NS]
                k = j

    def ancestors_of(self, ev):
        if ev.anc is None:
            self._ancestors([ev])
        return ev.anc

    # -- R4 -------------------------------------------------------------------
    def _before_trace(self):
        self.min_launch_corr = min((ln.corr for ln in self.launches), default=None)
        self.first_cpu_ns = min((e.ts for e in self.cpu), default=None)
        self.before = set()
        for g in self.gpu:
            if g.link is not None:
                continue
            if (g.corr is not None and self.min_launch_corr is not None
                    and g.corr < self.min_launch_corr) or \
               (self.first_cpu_ns is not None and g.ts < self.first_cpu_ns):
                self.before.add(g.i)

    # -- R3 -------------------------------------------------------------------
    def _steps(self, marker):
        cands = [e for e in self.events if e.kind in MARKER_KINDS]
        rules = []
        if marker is not None:
            rules.append(("--step-marker", re.compile(marker, re.S), "search"))
        else:
            for label, rx in STEP_RULES:
                rules.append((label, re.compile(rx[:-1] + r"\Z", re.S), "match"))
        self.step_rule = "none found: one step"
        found = []
        for label, rx, how in rules:
            test = rx.search if how == "search" else rx.match
            names = {}
            for e in cands:
                if e.name not in names:
                    names[e.name] = test(e.name) is not None
            found = [e for e in cands if names[e.name]]
            if found:
                self.step_rule = label
                break
        found.sort(key=lambda x: (x.ts, -x.dur, x.i))
        steps = []
        open_end = None
        for e in found:
            if open_end is not None and e.ts < open_end:
                continue
            steps.append({"name": e.name, "start_ns": e.ts, "wall_ns": e.dur, "ev": e})
            open_end = e.end
        self.whole = not steps
        if not steps:
            if self.events:
                lo = min(e.ts for e in self.events)
                hi = max(e.end for e in self.events)
                steps.append({"name": WHOLE_TRACE, "start_ns": lo, "wall_ns": hi - lo, "ev": None})
        self.steps = steps
        self.marker_ids = {s["ev"].i for s in steps if s["ev"] is not None}
        self._starts = [s["start_ns"] for s in steps]

    def step_at(self, t):
        i = bisect_right(self._starts, t) - 1
        if i < 0:
            return None
        s = self.steps[i]
        if self.whole or t < s["start_ns"] + s["wall_ns"]:
            return i
        return None

    def step_of(self, g):
        if g.i in self.before:
            return None
        return self.step_at(g.link.ts if g.link is not None else g.ts)


def load_trace(path, partial=False, marker=None):
    events, top, cut = load_doc(path, partial)
    return Trace(events, top, path, cut, marker)


# ---------------------------------------------------------------------------
# --by kernel

def by_kernel(tr):
    groups = {}
    for g in tr.gpu:
        groups.setdefault((g.kind, g.name), []).append(g.dur)
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


# ---------------------------------------------------------------------------
# --by step

def _row(evs):
    a = {"kernels": 0, "gpu_events": 0, "kernel_ns": 0, "gpu_ns": 0}
    by_name = {}
    iv = []
    for g in evs:
        a["gpu_events"] += 1
        a["gpu_ns"] += g.dur
        iv.append((g.ts, g.end))
        if g.kind == "kernel":
            a["kernels"] += 1
            a["kernel_ns"] += g.dur
            by_name[g.name] = by_name.get(g.name, 0) + g.dur
    busy = 0
    iv.sort()
    cs = ce = None
    for s, e in iv:
        if ce is None or s > ce:
            if ce is not None:
                busy += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    if ce is not None:
        busy += ce - cs
    a["gpu_busy_ns"] = busy
    top, top_ns = None, None  # no kernel, no top: unknown, not zero
    if by_name:
        top, top_ns = min(by_name.items(), key=lambda kv: (-kv[1], kv[0]))
    a["top_kernel"] = top
    a["top_ns"] = top_ns
    return a


def by_step(tr, user_regex=None):
    if user_regex != tr.marker:
        raise ValueError("the trace was read with --step-marker %r" % tr.marker)
    members = [[] for _ in tr.steps]
    before = []
    for g in tr.gpu:
        if g.i in tr.before:
            before.append(g)
            continue
        i = tr.step_of(g)
        if i is not None:
            members[i].append(g)
    out = []
    for i, (s, m) in enumerate(zip(tr.steps, members)):
        r = {"index": i, "name": s["name"], "start_ns": s["start_ns"], "wall_ns": s["wall_ns"]}
        r.update(_row(m))
        out.append(r)
    bt = None
    if before:
        lo = min(g.ts for g in before)
        bt = {"index": None, "name": BEFORE_TRACE, "start_ns": lo,
              "wall_ns": max(g.end for g in before) - lo}
        bt.update(_row(before))
    return {"step_rule": tr.step_rule, "steps": out, "before_trace": bt}


# ---------------------------------------------------------------------------
# --by op

def by_op(tr, user_regex=None, step=None):
    """Ops by the GPU time beneath them; with step: of that step only (its
    GPU events, and the op instances that began in it)."""
    totals = {}
    for g in tr.gpu:
        if g.link is None or (step is not None and tr.step_of(g) != step):
            continue
        names = {a.name for a in tr.ancestors_of(g.link)
                 if a.kind in OP_KINDS and a.i not in tr.marker_ids}
        for n in names:
            t = totals.setdefault(n, [0, 0])
            t[0] += g.dur
            t[1] += 1
    calls = {}
    for e in tr.cpu:
        if e.kind in OP_KINDS and e.i not in tr.marker_ids and (step is None or tr.step_at(e.ts) == step):
            c = calls.setdefault(e.name, [0, 0])
            c[0] += 1
            c[1] += e.dur
    rows = []
    for n, (gns, gev) in totals.items():
        c = calls.get(n, [0, 0])
        rows.append({"name": n, "gpu_ns": gns, "gpu_events": gev, "calls": c[0], "cpu_ns": c[1]})
    rows.sort(key=lambda r: (-r["gpu_ns"], r["name"]))
    return {"ops": rows}


# ---------------------------------------------------------------------------
# R6 traffic

def elem_size(t):
    if not isinstance(t, str):
        return None
    if t.startswith("c10::"):
        t = t[5:]
    if t.startswith("Float8_"):
        return 1
    return ELEM_SIZE.get(t)


def numel(dims):
    if not isinstance(dims, list):
        return None
    n = 1
    for d in dims:
        d = int_arg(d)
        if d is None:
            return None
        n *= d
    return n


def device_peak(tr, device):
    props = tr.top.get("deviceProperties")
    if not isinstance(props, list) or not props:
        return None
    ent = None
    for p in props:
        if isinstance(p, dict) and device is not None and int_arg(p.get("id")) == device:
            ent = p
            break
    if ent is None:
        ent = props[0]
    if not isinstance(ent, dict):
        return None
    name = ent.get("name") if isinstance(ent.get("name"), str) else ""
    sms = int_arg(ent.get("numSms"))
    mem = ent.get("totalGlobalMem")
    mem = float(mem) if isinstance(mem, (int, float)) and not isinstance(mem, bool) else None
    for keys, cus, gb, tbs in PEAKS:
        if keys == () and name != "":
            continue
        if not all(k in name for k in keys):
            continue
        if cus is not None and sms != cus:
            continue
        if gb is not None and (mem is None or not gb[0] * 1e9 <= mem < gb[1] * 1e9):
            continue
        return None if tbs is None else tbs * 1e12
    return None


def _under_counts(tr):
    if getattr(tr, "_under", None) is None:
        under = {}
        for g in tr.gpu:
            if g.link is not None:
                for a in tr.ancestors_of(g.link):
                    under[a.i] = under.get(a.i, 0) + 1
        tr._under = under
    return tr._under


def traffic(tr, g):
    nbytes, basis = None, None
    if g.kind in ("memcpy", "memset"):
        b = int_arg(g.args.get("bytes"))
        if b is not None and b >= 0:
            nbytes, basis = b, "bytes"
    elif g.kind == "kernel" and g.link is not None:
        ops = [a for a in tr.ancestors_of(g.link) if a.kind == "cpu_op"]
        op = ops[-1] if ops else None
        if op is not None and op.name == "aten::copy_" and _under_counts(tr).get(op.i) == 1:
            dims, types = op.args.get("Input Dims"), op.args.get("Input type")
            if isinstance(dims, list) and isinstance(types, list) and len(dims) >= 2 and len(types) >= 2:
                total = 0
                for d, t in zip(dims[:2], types[:2]):
                    n, sz = numel(d), elem_size(t)
                    if n is None or sz is None:
                        total = None
                        break
                    total += n * sz
                if total is not None:
                    nbytes, basis = total, "aten::copy_"
    peak = device_peak(tr, int_arg(g.args.get("device")))
    bw = None
    over = False
    if nbytes is not None and g.dur > 0:
        bw = nbytes / (g.dur / 1e9)
        if peak is not None and bw > peak:
            bw, over = None, True
    return {"bytes": nbytes, "bandwidth_Bps": bw, "peak_Bps": peak, "basis": basis,
            "over_peak": over}


# ---------------------------------------------------------------------------
# R7 graph attribution

def frame(a):
    return {"name": a.name, "kind": LABEL.get(a.kind, a.kind),
            "input_dims": plain(a.args.get("Input Dims")), "input_types": plain(a.args.get("Input type"))}


class Window:
    def __init__(self, source, order, begin, launches, label):
        self.source = source
        self.order = order
        self.begin = begin
        self.launches = launches        # [(name or None, frames)]
        self.names = [n for n, _ in launches]
        self.named = bool(launches) and all(n is not None for n in self.names)
        self.label = label


def capture_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p)
                          if f.endswith(".json") or f.endswith(".json.gz"))
        else:
            out.append(p)
    return out


CAPTURE_LABEL = re.compile(r"^capture_([0-9]+)")


def capture_windows(paths, partial=False):
    windows = []
    for path in capture_files(paths):
        ctr = load_trace(path, partial)
        src = os.path.basename(path)
        tracks = {}
        order = []
        for e in ctr.events:
            if e.kind in LAUNCH_KINDS:
                if e.track not in tracks:
                    tracks[e.track] = []
                    order.append(e.track)
                tracks[e.track].append(e)
        found = []
        for tn, tk in enumerate(order):
            lst = sorted(tracks[tk], key=lambda x: (x.ts, -x.dur, x.i))
            begin = None
            for e in lst:
                if "StreamBeginCapture" in e.name:
                    begin = e
                elif "StreamEndCapture" in e.name and begin is not None:
                    found.append((begin, e, tn, lst))
                    begin = None
        found.sort(key=lambda w: (w[0].ts, w[2]))
        kn = [e.args.get("kernel") for e in ctr.events if isinstance(e.args.get("kernel"), str)]
        demangle_all(kn)
        for begin, end, tn, lst in found:
            ls = [e for e in lst if begin.ts <= e.ts <= end.ts and "LaunchKernel" in e.name]
            launches = []
            for e in ls:
                kname = e.args.get("kernel")
                kname = demangle(kname) if isinstance(kname, str) else None
                frames = [frame(a) for a in ctr.ancestors_of(e) if a.kind in OP_KINDS]
                launches.append((kname, frames))
            label = None
            for a in ctr.ancestors_of(begin):
                if a.kind == "user_annotation":
                    m = CAPTURE_LABEL.match(a.name)
                    if m:
                        label = int(m.group(1))
            windows.append(Window(src, len(windows), begin, launches, label))
    return windows


def lcs_pairs(a, b):
    n, m = len(a), len(b)
    L = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        Li, Li1 = L[i], L[i + 1]
        ai = a[i]
        for j in range(m - 1, -1, -1):
            if ai == b[j]:
                Li[j] = Li1[j + 1] + 1
            else:
                x, y = Li1[j], Li[j + 1]
                Li[j] = x if x >= y else y
    pairs = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j] and L[i][j] == L[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i += 1
            j += 1
        elif L[i + 1][j] >= L[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _tiebreak_key(w, batch):
    if batch is not None and w.label is not None and w.label >= batch:
        return (0, w.label, w.order)
    return (1, 0, w.order)


def batch_of(step_name):
    if not step_name:
        return None
    m = re.search(r"bs=([0-9]+)", step_name)
    if m:
        return int(m.group(1))
    m = re.match(r"^execute_([0-9]+)_", step_name)
    return int(m.group(1)) if m else None


def match_replay(names, windows, batch):
    """[(label, window or None, launch index or None)] per replay kernel."""
    n = len(names)
    named = [w for w in windows if w.named]
    exact = [w for w in named if w.names == names]
    if exact:
        w = min(exact, key=lambda w: _tiebreak_key(w, batch))
        return [("exact", w, i) for i in range(n)]
    best, cands = None, []
    for w in named:
        m = len(w.names)
        if n == 0 or 10 * min(n, m) < 9 * max(n, m):
            continue    # LCS <= min(n, m): the score cannot reach 0.9
        pairs = lcs_pairs(names, w.names)
        score = (len(pairs), max(n, m))
        if 10 * score[0] < 9 * score[1]:
            continue
        if best is None or score[0] * best[1] > best[0] * score[1]:
            best, cands = score, [(w, pairs)]
        elif score[0] * best[1] == best[0] * score[1]:
            cands.append((w, pairs))
    if cands:
        w, pairs = min(cands, key=lambda c: _tiebreak_key(c[0], batch))
        res = [("none", None, None)] * n
        used = set()
        for i, j in pairs:
            res[i] = ("aligned", w, j)
            used.add(j)
        paired = dict(pairs)
        prev = (-1, -1)
        for i in range(n):
            if i in paired:
                prev = (i, paired[i])
                continue
            e = prev[1] + (i - prev[0])
            best_j = None
            for j in range(max(0, e - 8), min(len(w.names), e + 9)):
                if j in used or w.names[j] != names[i]:
                    continue
                if best_j is None or abs(j - e) < abs(best_j - e):
                    best_j = j
            if best_j is not None:
                used.add(best_j)
                res[i] = ("reordered", w, best_j)
        return res
    unnamed = [w for w in windows if not w.named and len(w.launches) == n and n > 0]
    if len(unnamed) == 1:
        return [("positional", unnamed[0], i) for i in range(n)]
    if len(unnamed) > 1:
        lab = [w for w in unnamed if batch is not None and w.label is not None and w.label >= batch]
        if lab:
            low = min(w.label for w in lab)
            lab = [w for w in lab if w.label == low]
            if len(lab) == 1:
                return [("positional", lab[0], i) for i in range(n)]
        return [("ambiguous", None, None)] * n
    return [("none", None, None)] * n


def attribute(tr, windows):
    """{GPU event index: (label, frames or None, source or None)} for replays."""
    replays = {}
    for g in tr.gpu:
        if g.link is not None and "GraphLaunch" in g.link.name:
            replays.setdefault(g.link.i, []).append(g)
    out = {}
    for li, ks in replays.items():
        ks.sort(key=lambda x: (x.ts, x.i))
        si = tr.step_at(ks[0].link.ts)
        batch = batch_of(tr.steps[si]["name"]) if si is not None and not tr.whole else None
        res = match_replay([k.name for k in ks], windows, batch)
        for k, (label, w, j) in zip(ks, res):
            if w is None:
                out[k.i] = (label, None, None)
            else:
                out[k.i] = (label, w.launches[j][1], w.source)
    return out


def graph_info(tr, attribution):
    c = {"kernels": 0, "exact": 0, "aligned": 0, "reordered": 0, "positional": 0,
         "ambiguous": 0, "none": 0}
    for g in tr.gpu:
        if g.link is not None and "GraphLaunch" in g.link.name:
            c["kernels"] += 1
            c[attribution.get(g.i, ("none",))[0]] += 1
    c["attributed"] = c["exact"] + c["aligned"] + c["reordered"] + c["positional"]
    c["not_attributed"] = c["kernels"] - c["attributed"]
    return c


# ---------------------------------------------------------------------------
# --by launches, --by warnings

def parent_entry(a):
    return {"name": a.name, "kind": LABEL.get(a.kind, a.kind), "start_ns": a.ts, "dur_ns": a.dur,
            "input_dims": plain(a.args.get("Input Dims")), "input_types": plain(a.args.get("Input type"))}


def launches(tr, windows=None):
    attribution = attribute(tr, windows) if windows is not None else {}
    out = []
    for g in sorted(tr.gpu, key=lambda x: (x.ts, x.i)):
        ln = g.link
        replay = ln is not None and "GraphLaunch" in ln.name
        cap = attribution.get(g.i) if replay else None
        out.append({
            "kind": g.kind, "name": g.name, "mangled_name": g.raw, "start_ns": g.ts, "dur_ns": g.dur,
            "device": plain(g.args.get("device")), "step": tr.step_of(g), "before_trace": g.i in tr.before,
            "launch": None if ln is None else {"name": ln.name, "pid": plain(ln.pid),
                                               "tid": plain(ln.tid), "start_ns": ln.ts,
                                               "dur_ns": ln.dur},
            "graph_replay": replay,
            "parents": [] if ln is None else [parent_entry(a) for a in tr.ancestors_of(ln)],
            "traffic": traffic(tr, g),
            "args": {k: plain(g.args.get(a)) for k, a in ARG_KEYS},
            "capture_match": None if windows is None or not replay else (cap[0] if cap else "none"),
            "captured_under": cap[1] if cap else None,
            "capture_source": cap[2] if cap else None,
        })
    return {"launches": out}


def warnings(tr, windows=None):
    n_any_gpu = sum(1 for e in tr.events if e.kind in GPU_ANY)
    w = {"truncated_at": tr.truncated_at, "colliding_ids": tr.colliding_ids,
         "launch_calls": len(tr.launches), "gpu_events": len(tr.gpu),
         "no_gpu_activity": len(tr.launches) > 0 and n_any_gpu == 0,
         "before_trace": len(tr.before), "not_attributed": None}
    if windows is not None:
        w["not_attributed"] = graph_info(tr, attribute(tr, windows))["not_attributed"]
    return w


# ---------------------------------------------------------------------------
# --by ranks

COMM_WORDS = ("nccl", "rccl", "msccl", "nvshmem", "deep_ep", "allreduce", "all_reduce", "allgather",
              "all_gather", "reducescatter", "reduce_scatter", "alltoall", "all_to_all",
              "cross_device_reduce")
RANK_KEYS = ("rank", "TP", "DP", "PP", "EP")


class RankError(Exception):
    pass


def is_comm(g):
    if g.kind != "kernel":
        return False
    return any(w in n.lower() for n in (g.name, g.raw or "") for w in COMM_WORDS)


def union_len(spans):
    total, cs, ce = 0, None, None
    for a, b in sorted(spans):
        if ce is None or a > ce:
            if ce is not None:
                total += ce - cs
            cs, ce = a, b
        elif b > ce:
            ce = b
    return total + (ce - cs if ce is not None else 0)


def info_rank(tr):
    di = tr.top.get("distributedInfo") if isinstance(tr.top, dict) else None
    if not isinstance(di, dict):
        return None
    r = di.get("rank")
    if isinstance(r, str) and r.isdigit():
        r = int(r)
    if isinstance(r, bool) or not isinstance(r, int) or r < 0:
        return None
    return r


def info_world(tr):
    di = tr.top.get("distributedInfo") if isinstance(tr.top, dict) else None
    w = di.get("world_size") if isinstance(di, dict) else None
    if isinstance(w, str) and w.isdigit():
        w = int(w)
    return w if isinstance(w, int) and not isinstance(w, bool) and w > 0 else None


def name_rank(path, key):
    m = re.search(r"(?<![A-Za-z0-9])" + key + r"[-_]?([0-9]+)", os.path.basename(path), re.I | re.A)
    return int(m.group(1)) if m else None


def assign_ranks(paths, trs, rank_from=None):
    """(rule, ranks); RankError for duplicates or a rule that does not apply."""
    def dup(ranks, why):
        seen = {}
        for p, r in zip(paths, ranks):
            if r in seen:
                raise RankError("%s and %s are both rank %d (by %s)" % (seen[r], p, r, why))
            seen[r] = p
    info = [info_rank(t) for t in trs]
    if rank_from == "info" or (rank_from is None and all(r is not None for r in info)):
        if any(r is None for r in info):
            raise RankError("no distributedInfo.rank in every trace")
        dup(info, "distributedInfo.rank")
        return "distributedInfo", info
    if rank_from in (None, "name"):
        first_present = None
        for key in RANK_KEYS:
            rs = [name_rank(p, key) for p in paths]
            if any(r is None for r in rs):
                continue
            if len(set(rs)) == len(rs):
                return "name", rs
            if first_present is None:
                first_present = (key, rs)
        if first_present is not None:
            dup(first_present[1], "the file names' %s-N" % first_present[0])
        if rank_from == "name":
            raise RankError("the file names do not all carry a rank")
    return "order", list(range(len(paths)))


def rank_cells(tr):
    """Per step of tr: the figures of --by ranks."""
    members = [[] for _ in tr.steps]
    for g in tr.gpu:
        i = tr.step_of(g)
        if i is not None:
            members[i].append(g)
    cells = []
    for i, (s, m) in enumerate(zip(tr.steps, members)):
        comp = [(g.ts, g.end) for g in m if not is_comm(g)]
        comm = [(g.ts, g.end) for g in m if is_comm(g)]
        c = {"index": i, "name": s["name"], "wall_ns": s["wall_ns"],
             "gpu_busy_ns": union_len(comp + comm), "compute_ns": union_len(comp),
             "comm_ns": union_len(comm), "gpu_events": len(m), "comm_kernels": len(comm)}
        c["overlap_ns"] = max(0, c["compute_ns"] + c["comm_ns"] - c["gpu_busy_ns"])
        cells.append(c)
    return cells


def by_ranks(paths, rank_from=None, marker=None, partial=False):
    trs = [load_trace(p, partial, marker) for p in paths]
    rule, ranks = assign_ranks(paths, trs, rank_from)
    order = sorted(range(len(paths)), key=lambda i: (ranks[i], i))
    rows = []
    for i in order:
        rows.append({"rank": ranks[i], "trace": paths[i], "world_size": info_world(trs[i]),
                     "steps": rank_cells(trs[i])})
    nsteps = max((len(r["steps"]) for r in rows), default=0)
    for r in rows:
        r["steps"] += [None] * (nsteps - len(r["steps"]))
    steps, counts = [], {}
    for s in range(nsteps):
        have = [(r["rank"], r["steps"][s]) for r in rows if r["steps"][s] is not None]
        st = {"index": s, "ranks": len(have), "skew_ns": None, "straggler": None,
              "slowest_compute": None, "compute_spread_ns": None,
              "comm_mismatch": len({c["comm_kernels"] for _, c in have}) > 1}
        for _, c in have:
            c["wait_ns"] = None
            c["straggler"] = False
        if len(have) >= 2:
            comp = [c["compute_ns"] for _, c in have]
            st["compute_spread_ns"] = max(comp) - min(comp)
            st["slowest_compute"] = min(have, key=lambda rc: (-rc[1]["compute_ns"], rc[0]))[0]
            if any(c["comm_kernels"] for _, c in have):
                low = min(c["comm_ns"] for _, c in have)
                st["skew_ns"] = max(c["comm_ns"] for _, c in have) - low
                for _, c in have:
                    c["wait_ns"] = c["comm_ns"] - low
                if st["skew_ns"] > 0:
                    st["straggler"] = min(have, key=lambda rc: (rc[1]["comm_ns"], rc[0]))[0]
                    counts[st["straggler"]] = counts.get(st["straggler"], 0) + 1
                    for r, c in have:
                        c["straggler"] = r == st["straggler"]
        steps.append(st)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"rank_rule": rule, "ranks": rows, "steps": steps,
            "straggler": {"rank": ranked[0][0] if ranked else None,
                          "steps": ranked[0][1] if ranked else 0, "of": sum(counts.values()),
                          "counts": [{"rank": r, "steps": n} for r, n in ranked]}}


def summary_line(path, tr):
    k = by_kernel(tr)
    s = by_step(tr, tr.marker)
    o = by_op(tr)["ops"]
    st = s["steps"]
    nk = sum(r["instances"] for r in k["kernels"])
    linked = sum(1 for g in tr.gpu if g.link is not None)
    top = k["kernels"][0] if k["kernels"] else None
    line = ("%s: %d GPU events (%d linked to a launch, %d before the trace), %d names, total %.3f ms; "
            "%d step(s)%s; %d op names with GPU time"
            % (path, nk, linked, len(tr.before), len(k["kernels"]), k["total_gpu_ns"] / 1e6, len(st),
               " [%s .. %s]" % (st[0]["name"][:40], st[-1]["name"][:40]) if st else "", len(o)))
    if top:
        line += "\n    top: %s x%d %.3f ms (%.1f%%) %s" % (
            top["kind"], top["instances"], top["total_ns"] / 1e6,
            100.0 * top["total_ns"] / max(1, k["total_gpu_ns"]), top["name"][:90])
    if o:
        line += "\n    top op: %s %.3f ms in %d GPU events" % (o[0]["name"][:60], o[0]["gpu_ns"] / 1e6,
                                                           o[0]["gpu_events"])
    return line


def main(argv=None):
    p = argparse.ArgumentParser(description="Reference recount of a Kineto trace (see module doc).")
    p.add_argument("trace", nargs="+", help="trace file (.json or .json.gz); several with --summary")
    p.add_argument("--by", choices=["kernel", "step", "op", "launches", "warnings", "graph", "ranks"],
                   default="kernel")
    p.add_argument("--step-marker", metavar="REGEX", help="step marker regex (re.search)")
    p.add_argument("--graph-capture", metavar="CAPTURE", action="append", nargs="+",
                   help="capture trace(s) or folder(s) of them (R7)")
    p.add_argument("--summary", action="store_true", help="one line per trace instead of JSON")
    p.add_argument("--rank-from", choices=["info", "name", "order"],
                   help="--by ranks: the rule that tells the ranks (default: the first that applies)")
    p.add_argument("--partial", action="store_true",
                   help="accept a truncated trace: count the whole events before the cut")
    p.add_argument("--findings", action="store_true",
                   help="the findings' breakdown, idle causes and op-shape groups (recount_findings.py)")
    p.add_argument("--model", action="store_true", help="--by op: with the op model columns")
    p.add_argument("--step", type=int, metavar="N", help="--findings, --by op: step N only")
    a = p.parse_args(argv)
    if a.step_marker is not None:
        try:
            re.compile(a.step_marker)
        except re.error as e:
            p.error("bad --step-marker: %s" % e)
    if a.by == "ranks":
        try:
            res = by_ranks(a.trace, a.rank_from, a.step_marker, a.partial)
        except RankError as e:
            print("recount.py: %s" % e, file=sys.stderr)
            return 1
        except (OSError, ValueError, EOFError, zlib.error) as e:
            print("recount.py: %s" % e, file=sys.stderr)
            return 2
        json.dump(res, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    try:
        if a.summary:
            for path in a.trace:
                print(summary_line(path, load_trace(path, a.partial, a.step_marker)))
            return 0
        if len(a.trace) != 1:
            p.error("one TRACE unless --summary")
        tr = load_trace(a.trace[0], a.partial, a.step_marker)
        windows = None
        if a.graph_capture:
            windows = capture_windows([c for grp in a.graph_capture for c in grp], a.partial)
    except (OSError, ValueError, EOFError, zlib.error) as e:
        print("recount.py: %s: %s" % (a.trace[0], e), file=sys.stderr)
        return 2
    if a.findings or a.model:
        # the findings' modules import this one as "recount"
        sys.modules.setdefault("recount", sys.modules[__name__])
        import recount_findings
    if a.step is not None and not 0 <= a.step < len(tr.steps):
        print("recount.py: %s: no step %d (the trace has %d)" % (a.trace[0], a.step, len(tr.steps)),
              file=sys.stderr)
        return 2
    if a.findings:
        res = recount_findings.findings(tr, a.step)
    elif a.by == "kernel":
        res = by_kernel(tr)
    elif a.by == "step":
        res = by_step(tr, a.step_marker)
    elif a.by == "op":
        res = recount_findings.by_op_model(tr, a.step) if a.model else by_op(tr, step=a.step)
    elif a.by == "launches":
        res = launches(tr, windows)
    elif a.by == "graph":
        res = graph_info(tr, attribute(tr, windows or []))
    else:
        res = warnings(tr, windows)
    json.dump(res, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run Meta's Holistic Trace Analysis (HTA) itself on traces and print its figures as JSON.

    hta_reference.py [--hta DIR] [--also-last-step] TRACE... > golden.json

This is a reference harness, not part of tix: it imports HTA from a checkout
outside the repository (--hta, or $HTA_DIR; default /work/ext/
facebookresearch+HolisticTraceAnalysis) and calls its public TraceAnalysis
API with HTA's own defaults.  Its output is committed as
tests/ref/golden/hta.json so that tix's tests can compare against HTA
without HTA (or pandas) installed; see tests/ref/README.md.

Each TRACE is staged alone in a scratch folder (HTA reads one trace per rank
from a folder) and analysed as one TraceAnalysis.  Per trace it records, per
rank:
  temporal   get_temporal_breakdown(): idle / compute / non-compute /
             kernel_time, in the trace's own unit (microseconds: HTA never
             converts Kineto's ts/dur), and HTA's rounded percentages; plus
             the span HTA measured over (first start, last end of the events
             it counted, in the trace's ts, i.e. HTA's aligned ts + min_ts) and
             how many events it counted by HTA kernel type.
  idle       get_idle_time_breakdown(consecutive_kernel_delay=30, HTA's
             default) for every stream: host_wait / kernel_wait / other.
  overlap    get_comm_comp_overlap(): the share of communication time
             overlapped by computation (null where there is no comm kernel).
  kernel_types  get_gpu_kernel_breakdown(include_memory_kernels=True):
             the time per HTA kernel type, overlaps split out as HTA does.
  launch     get_cuda_kernel_launch_stats() summed: launch count, sums of
             cpu_duration / gpu_duration / launch_delay, and the counts of
             HTA's three outlier classes at its defaults (runtime_cutoff=50,
             launch_delay_cutoff=100).
Variants, each with temporal, idle and overlap only:
  with_last_step  (--also-last-step, traces with two or more ProfilerStep
             names) include_last_profiler_step=True: by default HTA keeps only
             the GPU events launched by CPU events that start before the last
             ProfilerStep does.
  exact_ts   (traces where some ts is a JSON float) HTA_DISABLE_NS_ROUNDING:
             by default HTA's parser rounds every event inwards to whole
             microseconds (ts = ceil(ts), end = floor(ts + dur)); this is
             HTA's algorithm on the unrounded times.
  exact_ts_with_last_step  (--also-last-step, traces that have both) the
             two at once: HTA's algorithm on tix's event times over the
             whole trace, what tix's breakdown is compared with.  On the
             other traces one of the records above is already that: the
             default (no float ts, fewer than two steps), with_last_step
             (no float ts) or exact_ts (fewer than two steps).

A figure HTA cannot compute (an exception) is recorded as {"error": "..."}:
that, too, is what HTA does on that trace.
"""

import argparse
import contextlib
import io
import json
import logging
import os
import shutil
import sys
import tempfile

from ref_util import json_number, provenance, trace_key

DEFAULT_HTA = "/work/ext/facebookresearch+HolisticTraceAnalysis"
CONSECUTIVE_KERNEL_DELAY = 30  # HTA's default (trace_analysis.py get_idle_time_breakdown)
RUNTIME_CUTOFF = 50  # HTA's default (get_cuda_kernel_launch_stats)
LAUNCH_DELAY_CUTOFF = 100  # HTA's default (get_cuda_kernel_launch_stats)


def num(x):
    """A JSON-safe number: ints stay ints, NaN becomes null, floats keep 6 decimals."""
    return json_number(x, lambda f: round(f, 6))


def guarded(fn):
    """Run fn(); an exception becomes {"error": "Type: message"}, HTA's chatter is dropped."""
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink):
            return fn()
    except Exception as e:  # what HTA raises is part of the record
        return {"error": f"{type(e).__name__}: {e}"}


def temporal(analysis):
    from hta.utils.utils import get_kernel_type

    df = analysis.get_temporal_breakdown(visualize=False)
    sym = analysis.t.symbol_table.get_sym_table()
    out = {}
    for _, row in df.iterrows():
        rank = int(row["rank"])
        trace_df = analysis.t.traces[rank]
        gpu = trace_df[trace_df["stream"].ne(-1)]
        types = {}
        for name_id in gpu["name"]:
            kt = get_kernel_type(sym[name_id])
            types[kt] = types.get(kt, 0) + 1
        end = gpu["ts"] + gpu["dur"]
        out[str(rank)] = {
            "idle_us": num(row["idle_time(us)"]),
            "compute_us": num(row["compute_time(us)"]),
            "non_compute_us": num(row["non_compute_time(us)"]),
            "kernel_time_us": num(row["kernel_time(us)"]),
            "idle_pctg": num(row["idle_time_pctg"]),
            "compute_pctg": num(row["compute_time_pctg"]),
            "non_compute_pctg": num(row["non_compute_time_pctg"]),
            "span_first_ts": num(gpu["ts"].min() + analysis.t.min_ts),
            "span_last_end": num(end.max() + analysis.t.min_ts),
            "events_counted": int(len(gpu)),
            "events_by_kernel_type": dict(sorted(types.items())),
        }
    return out


def idle(analysis):
    ranks = sorted(analysis.t.traces.keys())
    df, _ = analysis.get_idle_time_breakdown(
        ranks=ranks,
        visualize=False,
        consecutive_kernel_delay=CONSECUTIVE_KERNEL_DELAY,
    )
    out = {}
    for _, row in df.iterrows():
        rank, stream = str(int(row["rank"])), str(int(row["stream"]))
        cell = out.setdefault(rank, {}).setdefault(
            stream, {"host_wait": 0, "kernel_wait": 0, "other": 0}
        )
        cell[row["idle_category"]] = num(row["idle_time"])
    return out


def overlap(analysis):
    df = analysis.get_comm_comp_overlap(visualize=False)
    return {str(int(r["rank"])): num(r["comp_comm_overlap_pctg"]) for _, r in df.iterrows()}


def kernel_types(analysis):
    types_df, _ = analysis.get_gpu_kernel_breakdown(
        visualize=False, include_memory_kernels=True
    )
    return {
        r["kernel_type"]: {"sum_us": num(r["sum"]), "percentage": num(r["percentage"])}
        for _, r in types_df.iterrows()
    }


def launch(analysis):
    ranks = sorted(analysis.t.traces.keys())
    stats = analysis.get_cuda_kernel_launch_stats(
        ranks=ranks,
        runtime_cutoff=RUNTIME_CUTOFF,
        launch_delay_cutoff=LAUNCH_DELAY_CUTOFF,
        visualize=False,
    )
    out = {}
    for rank, df in stats.items():
        short = (df["cpu_duration"] <= RUNTIME_CUTOFF) & (df["gpu_duration"] < df["cpu_duration"])
        out[str(rank)] = {
            "launches": int(len(df)),
            "cpu_duration_sum_us": num(df["cpu_duration"].sum()),
            "gpu_duration_sum_us": num(df["gpu_duration"].sum()),
            "launch_delay_sum_us": num(df["launch_delay"].sum()),
            "short_gpu_kernels": int(short.sum()),
            "runtime_outliers": int((df["cpu_duration"] > RUNTIME_CUTOFF).sum()),
            "launch_delay_outliers": int((df["launch_delay"] > LAUNCH_DELAY_CUTOFF).sum()),
        }
    return out


def profiler_steps(analysis):
    ids = analysis.t.symbol_table.get_profiler_step_ids()
    return len(ids)


def load(trace, scratch, include_last_step, ns_rounding=True):
    from hta.configs.env_options import HTAEnvOptions
    from hta.trace_analysis import TraceAnalysis

    HTAEnvOptions.instance().set_disable_ns_rounding(not ns_rounding)
    folder = tempfile.mkdtemp(dir=scratch)
    shutil.copy(trace, folder)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        return TraceAnalysis(trace_dir=folder, include_last_profiler_step=include_last_step)


def variant(trace, scratch, include_last_step, ns_rounding):
    """The span figures (temporal, idle, overlap) under other HTA settings."""
    analysis = guarded(lambda: load(trace, scratch, include_last_step, ns_rounding))
    if isinstance(analysis, dict):
        return {"load": analysis}
    return {
        "temporal": guarded(lambda: temporal(analysis)),
        "idle": guarded(lambda: idle(analysis)),
        "overlap_pctg": guarded(lambda: overlap(analysis)),
    }


def has_fractional_ts(trace):
    """Whether HTA's parser sees a float ts column (then it rounds every event
    inwards to whole microseconds: ts = ceil(ts), end = floor(ts + dur))."""
    import gzip

    opener = gzip.open if trace.endswith(".gz") else open
    with opener(trace, "rt") as f:
        doc = json.load(f)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    return any(isinstance(e.get("ts"), float) for e in events if isinstance(e, dict))


def analyse(trace, scratch, also_last_step):
    analysis = guarded(lambda: load(trace, scratch, False))
    if isinstance(analysis, dict):
        return {"load": analysis}
    steps = profiler_steps(analysis)
    rounded = has_fractional_ts(trace)
    record = {
        "ranks": sorted(int(r) for r in analysis.t.traces.keys()),
        "profiler_step_names": steps,
        "last_step_dropped": steps >= 2,
        "ts_rounded_to_us": rounded,
        "temporal": guarded(lambda: temporal(analysis)),
        "idle": guarded(lambda: idle(analysis)),
        "overlap_pctg": guarded(lambda: overlap(analysis)),
        "kernel_types": guarded(lambda: kernel_types(analysis)),
        "launch": guarded(lambda: launch(analysis)),
    }
    if also_last_step and steps >= 2:
        record["with_last_step"] = variant(trace, scratch, True, True)
    if rounded:
        record["exact_ts"] = variant(trace, scratch, False, False)
    if also_last_step and steps >= 2 and rounded:
        record["exact_ts_with_last_step"] = variant(trace, scratch, True, False)
    return record


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hta", default=os.environ.get("HTA_DIR", DEFAULT_HTA))
    ap.add_argument("--also-last-step", action="store_true")
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()

    sys.path.insert(0, args.hta)
    logging.disable(logging.WARNING)

    scratch = tempfile.mkdtemp(prefix="hta_ref_")
    results = {}
    try:
        for trace in args.traces:
            print(f"hta_reference: {trace}", file=sys.stderr)
            results[trace_key(trace)] = analyse(trace, scratch, args.also_last_step)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    command = "tests/ref/hta_reference.py" + (" --also-last-step" if args.also_last_step else "")
    doc = provenance("HolisticTraceAnalysis", args.hta, command, args.traces)
    doc.update({
        "units": "microseconds (the trace's ts/dur unit; HTA does not convert)",
        "consecutive_kernel_delay": CONSECUTIVE_KERNEL_DELAY,
        "runtime_cutoff": RUNTIME_CUTOFF,
        "launch_delay_cutoff": LAUNCH_DELAY_CUTOFF,
        "traces": results,
    })
    json.dump(doc, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

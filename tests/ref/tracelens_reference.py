#!/usr/bin/env python3
"""Run AMD's TraceLens itself on traces and print its per-op roofline figures as JSON.

    tracelens_reference.py [--tracelens DIR] [--sheets GEMM,SDPA,...]
                           [--row-sheets GEMM,...] TRACE... > golden.json

This is a reference harness, not part of tix: it imports TraceLens from a
checkout outside the repository (--tracelens, or $TRACELENS_DIR; default
/work/ext/AMD-AGI+TraceLens) and calls the same functions its PyTorch report
(Reporting/generate_perf_report_pytorch.py) calls, with no GPU arch file (so
no roofline times or simulated times, which need one).  Its output is
committed as tests/ref/golden/tracelens.json so that tix's tests can compare
against TraceLens without it installed; see tests/ref/README.md.

Per trace it records:
  gpu_timeline  TraceLens's whole-trace GPU breakdown (get_df_gpu_timeline:
                computation, exposed comm, exposed memcpy, busy, idle, total),
                in milliseconds, over the GPU events it links to a launch.
  ops           for every CPU op whose name TraceLens models in the chosen
                report sheets (--row-sheets, default GEMM, SDPA, CONV and
                UnaryElementwise (copies and casts); the same selection as
                its report: every event with that name, nested or not), one
                row as build_df_perf_metrics(bwd=False) gives it: flops (its
                GFLOPS x 1e9), bytes (its "Data Moved (MB)" x 2^20), kernel
                time in microseconds (the union of the intervals of the GPU
                events beneath the op), TFLOP/s and TB/s, the kernels, and
                the op's identity (ts, pid, tid, External id, Input Dims,
                Input type) so a test can find the same op.
  by_name       the rows of every sheet in --sheets (default: the row sheets
                and BinaryElementwise, Normalization, Reduce) summed per op
                name: count, flops, bytes, kernel time, and flops / kernel
                time as TFLOP/s.
  failed        op instances TraceLens could not model (exception), by name.
A trace TraceLens cannot analyse at all is recorded as {"error": "..."}.
"""

import argparse
import contextlib
import io
import json
import math
import os
import sys
import warnings

from ref_util import json_number, provenance, trace_key

DEFAULT_TRACELENS = "/work/ext/AMD-AGI+TraceLens"
DEFAULT_ROW_SHEETS = "GEMM,SDPA,CONV,UnaryElementwise"
DEFAULT_SHEETS = DEFAULT_ROW_SHEETS + ",BinaryElementwise,Normalization,Reduce"
KERNEL_NAME_CHARS = 80  # enough to tell kernels apart; ROCm Tensile names run past 1,500


def num(x):
    """A JSON-safe number: ints stay ints, NaN becomes null, floats keep 9 significant digits."""
    return json_number(x, lambda f: float(f"{f:.9g}"))


def plain(value):
    """Tuples and numpy scalars as plain JSON values."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def gpu_timeline(analyzer):
    df = analyzer.get_df_gpu_timeline()
    return {row["type"]: num(row["time ms"]) for _, row in df.iterrows()}


def sheet_op_names(analyzer, sheets):
    from TraceLens.PerfModel.torch_op_mapping import build_sheet_category_to_op_names

    by_sheet = build_sheet_category_to_op_names(analyzer.op_to_perf_model_class_map)
    names = set()
    for sheet in sheets:
        names.update(by_sheet.get(sheet, []))
    return names


def op_rows(analyzer, names):
    events = [e for e in analyzer.tree.events if e.get("name") in names]
    if not events:
        return [], {}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        df = analyzer.build_df_perf_metrics(
            events, bwd=False, include_kernel_details=True, include_args=True
        )
    done = set(df["UID"]) if not df.empty else set()
    failed = {}
    for e in events:
        if e["UID"] not in done:
            failed[e["name"]] = failed.get(e["name"], 0) + 1
    rows = []
    for _, r in df.iterrows():
        ev = analyzer.tree.get_UID2event(r["UID"])
        mb = r.get("Data Moved (MB)")
        kernels = r.get("kernel_details") or []
        rows.append(
            {
                "name": r["name"],
                "uid": int(r["UID"]),
                "ts": plain(ev.get("ts")),
                "pid": plain(ev.get("pid")),
                "tid": plain(ev.get("tid")),
                "external_id": plain(r.get("external_id")),
                "input_dims": plain(ev["args"].get("Input Dims")),
                "input_type": plain(ev["args"].get("Input type")),
                "flops": num(r["GFLOPS"] * 1e9),
                "bytes": None if mb is None or (isinstance(mb, float) and math.isnan(mb)) else num(mb * 1024 * 1024),
                "kernel_time_us": num(r["Kernel Time (µs)"]),
                "tflops_per_s": num(r["TFLOPS/s"]),
                "tb_per_s": num(r.get("TB/s")),
                "compute_spec": r.get("Compute Spec") or None,
                "kernels": len(kernels),
                "kernel_names": sorted({k["name"][:KERNEL_NAME_CHARS] for k in kernels}),
            }
        )
    return rows, failed


def by_name(rows):
    """Sums per op name.  TFLOP/s is over the ops that have GPU time only: an op
    whose kernels TraceLens did not link (time 0) has FLOPs but no rate."""
    out = {}
    for r in rows:
        s = out.setdefault(
            r["name"],
            {"count": 0, "with_kernels": 0, "flops": 0, "bytes": 0, "timed_flops": 0, "kernel_time_us": 0},
        )
        s["count"] += 1
        s["flops"] += r["flops"] or 0
        s["bytes"] += r["bytes"] or 0
        if r["kernel_time_us"]:
            s["with_kernels"] += 1
            s["timed_flops"] += r["flops"] or 0
            s["kernel_time_us"] += r["kernel_time_us"]
    for s in out.values():
        t = s["kernel_time_us"]
        s["tflops_per_s"] = num(s["timed_flops"] / 1e12 / (t / 1e6)) if t else None
        for k in ("flops", "bytes", "timed_flops", "kernel_time_us"):
            s[k] = num(s[k])
    return dict(sorted(out.items()))


def analyse(trace, sheets, row_sheets):
    from TraceLens.TreePerf.tree_perf import TreePerfAnalyzer

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analyzer = TreePerfAnalyzer.from_file(trace)
        timeline = gpu_timeline(analyzer)
        rows, failed = op_rows(analyzer, sheet_op_names(analyzer, sheets))
        row_names = sheet_op_names(analyzer, row_sheets)
    props = analyzer.trace_metadata.get("deviceProperties") or [{}]
    return {
        "device": {"name": props[0].get("name"), "numSms": props[0].get("numSms")},
        "gpu_timeline_ms": timeline,
        "by_name": by_name(rows),
        "failed": failed,
        "ops": [r for r in rows if r["name"] in row_names],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tracelens", default=os.environ.get("TRACELENS_DIR", DEFAULT_TRACELENS))
    ap.add_argument("--sheets", default=DEFAULT_SHEETS)
    ap.add_argument("--row-sheets", default=DEFAULT_ROW_SHEETS)
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()

    sys.path.insert(0, args.tracelens)

    row_sheets = [s for s in args.row_sheets.split(",") if s]
    sheets = sorted(set(s for s in args.sheets.split(",") if s) | set(row_sheets))
    results = {}
    for trace in args.traces:
        print(f"tracelens_reference: {trace}", file=sys.stderr)
        try:
            results[trace_key(trace)] = analyse(trace, sheets, row_sheets)
        except Exception as e:  # what TraceLens raises is part of the record
            results[trace_key(trace)] = {"error": f"{type(e).__name__}: {e}"}

    command = "tests/ref/tracelens_reference.py --sheets " + ",".join(sheets)
    command += " --row-sheets " + ",".join(row_sheets)
    doc = provenance("TraceLens", args.tracelens, command, args.traces)
    doc["units"] = "flops, bytes, microseconds; TFLOP/s = flops / 1e12 / (kernel_time_us / 1e6)"
    doc["traces"] = results
    write_json(doc, sys.stdout)


def write_json(doc, out):
    """Indented JSON, but each op row on one line (the file stays reviewable and small)."""
    rows = []
    for result in doc["traces"].values():
        if "ops" in result:
            placed = []
            for r in result["ops"]:
                placed.append(f"@ROW{len(rows)}@")
                rows.append(json.dumps(r, separators=(",", ":")))
            result["ops"] = placed
    text = json.dumps(doc, indent=1)
    for i, row in enumerate(rows):
        text = text.replace(f'"@ROW{i}@"', row, 1)
    out.write(text + "\n")


if __name__ == "__main__":
    main()

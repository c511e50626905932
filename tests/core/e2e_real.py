#!/usr/bin/env python3
"""Issue 8: tix against the reference recount (tests/ref/recount.py, rules
R1-R9 in its docstring) on real traces and on the generator's variants.

    e2e_real.py --tix TIX --work DIR --real DIR [--hta DIR]   the real traces
    e2e_real.py --tix TIX --work DIR --generated              generated variants

With --real naming a folder that is not there it prints why and exits 77
(ctest's SKIP_RETURN_CODE).  For every trace (real/, the HTA traces in
--hta, or each generated variant):

  * summary --by kernel|step|op agree with the recount (compare_recount.py:
    groups; steps with before_trace; ops by containment);
  * show --kernel . --limit 0 --format json, per GPU work event (matched by
    kind, name, start, duration): "parents" == the recount's ancestors of
    its launch call as (name, kind, start_ns, dur_ns), with the same Input
    Dims / Input type where the trace has lists; the launch call (name, pid
    and tid as given, start, duration); the step (null before the trace);
    "traffic" (bytes and basis exact, bandwidth within 1e-6 relative,
    over_peak); grid / block / registers / shared_mem / bytes as in the
    trace and null where absent (graph_id too when tix prints it);
    "mangled_name" beside a demangled "name";
  * no bandwidth above the peak; summary JSON rows carry a "short_name"
    and no two names share one;
  * show text: no -1 printed for an unknown, each Input Dims on one line;
  * warnings (R9): what the recount finds (truncation, colliding ids,
    launch calls without GPU activity, GPU work before the trace, replayed
    kernels not attributed) is in `tix info`, on the stderr of `summary
    X.tix` and of a `summary TRACE --format json` that reuses the cached
    index, with the recount's numbers (a line's first integer), and no such
    warning where the recount finds nothing;
  * export --step N (the last step with GPU work, not the first)
    re-summarised: exactly one step, the
    same name and GPU events (by tix and by the recount of the export);
  * capture pairs (NAME.replay.json.gz + NAME.capture*.json.gz, or a
    generated replay and capture): show --graph-capture gives each replayed
    kernel the recount's captured_under (frames and shapes), capture_match
    (exact / positional / ambiguous / none per kernel; aligned and
    reordered as counts per replay, since two LCS of equal length may pair
    a swap either way) and capture_source; tix info's "graph replays:" line
    has the recount's counts;
  * the named expectations of issue 8 (README facts), checked on the
    recount itself and on tix.
"""

import json
import os
import re
import sys

import tixtest
from compare_recount import compare_trace

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402  (the reference; shares no code with tix)

SKIP = 77
MISSING = object()
NULL_ARGS = ("grid", "block", "registers", "shared_mem", "bytes")


def short(v, n=160):
    s = json.dumps(v, default=str) if not isinstance(v, str) else v
    return s if len(s) <= n else s[:n] + "..."


def tix_json(args, chk, label, *argv, **kw):
    rc, out, err = tixtest.tix(args, *argv, **kw)
    if not chk.check(rc == 0, "%s: tix %s exits 0" % (label, argv[0]),
                     "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300])):
        return None, err
    try:
        return json.loads(out), err
    except ValueError as e:
        chk.check(False, "%s: tix %s prints valid JSON" % (label, argv[0]), "%s: %r" % (e, out[:200]))
        return None, err


def ev_key(x):
    return (x.get("kind"), x.get("name"), x.get("start_ns"), x.get("dur_ns"))


def ev_label(x):
    return "%s %s @%s" % (x.get("kind"), (x.get("name") or "")[:70], x.get("start_ns"))


def parents_of(x):
    ps = x.get("parents")
    if not isinstance(ps, list):
        return None
    return [(p.get("name"), p.get("kind"), p.get("start_ns", MISSING), p.get("dur_ns", MISSING))
            for p in ps]


def fmt_parents(ps):
    if ps is None:
        return "none"
    return "[" + " > ".join("%s(%s+%s)" % (n[:40], s if s is not MISSING else "?", d if d is not MISSING else "?")
                            for n, k, s, d in ps) + "]"


def close(a, b, rel=1e-6):
    if a is None or b is None:
        return a is None and b is None
    if not isinstance(a, (int, float)) or isinstance(a, bool):
        return False
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def pair_events(tl, rl):
    """Matches tix's launches to the recount's by (kind, name, start, dur).
    Returns (pairs, recount-only, tix-only)."""
    by = {}
    for r in rl:
        by.setdefault(ev_key(r), []).append(r)
    pairs, extra = [], []
    for t in tl:
        lst = by.get(ev_key(t))
        if lst:
            # among equal keys, the one with the same parent chain if any
            pt = parents_of(t)
            k = next((i for i, r in enumerate(lst) if parents_of(r) == pt), 0)
            pairs.append((t, lst.pop(k)))
        else:
            extra.append(t)
    missing = [r for lst in by.values() for r in lst]
    return pairs, missing, extra


class Diffs:
    """Disagreements of one field: counted, the first few described."""

    def __init__(self):
        self.n = 0
        self.ex = []

    def add(self, what):
        self.n += 1
        if len(self.ex) < 4:
            self.ex.append(what)

    def report(self, chk, what, total):
        chk.check(self.n == 0, "%s (%d events)" % (what, total),
                  "%d disagree: %s" % (self.n, " | ".join(self.ex)))


def compare_launches(chk, label, tj, ref, capture=False):
    """show --format json vs recount --by launches (R1, R5, R6, R7, R8)."""
    tl = tj.get("launches", [])
    rl = ref["launches"]
    chk.eq(tj.get("matched"), len(rl), "%s: show --kernel . matches every GPU work event" % label)
    pairs, missing, extra = pair_events(tl, rl)
    chk.check(not missing and not extra, "%s: the same GPU events (kind, name, start, dur)" % label,
              "recount only: %s; tix only: %s" % ([ev_label(r) for r in missing[:3]],
                                                  [ev_label(t) for t in extra[:3]]))
    d = {k: Diffs() for k in ("parents", "shapes", "launch", "step", "traffic", "args", "mangled",
                              "capture_match", "captured_under", "capture_source")}
    labels = {}     # replay launch -> ({label: count} tix, recount)
    for t, r in pairs:
        el = ev_label(r)
        pt, pr = parents_of(t), parents_of(r)
        if pt != pr:
            tn, rn = [p[0] for p in pt or []], [p[0] for p in pr]
            more = [n[:50] for n in tn if n not in rn]
            less = [n[:50] for n in rn if n not in tn]
            d["parents"].add("%s: tix has %s, lacks %s%s" % (
                el, more[:4], less[:4],
                "" if more or less else "; tix %s vs recount %s" % (fmt_parents(pt)[:300], fmt_parents(pr)[:300])))
        elif pt:
            for pa, pb in zip(t["parents"], r["parents"]):
                for f in ("input_dims", "input_types"):
                    if isinstance(pb[f], list) and pa.get(f) != pb[f]:
                        d["shapes"].add("%s: parent %s %s: tix %s vs recount %s" % (
                            el, pb["name"][:40], f, short(pa.get(f, "absent"), 80), short(pb[f], 80)))
        lt, lr = t.get("launch"), r["launch"]
        if lr is None:
            if lt is not None:
                d["launch"].add("%s: tix links %s, recount finds no launch" % (el, short(lt, 120)))
        elif not isinstance(lt, dict) or any(lt.get(f, MISSING) != lr[f] for f in lr):
            d["launch"].add("%s: tix %s vs recount %s" % (el, short(lt, 150), short(lr, 150)))
        if t.get("step", MISSING) != r["step"]:
            d["step"].add("%s: tix step %s vs recount %s%s" % (el, t.get("step", "absent"), r["step"],
                                                            " (before the trace)" if r["before_trace"] else ""))
        tt, rt = t.get("traffic"), r["traffic"]
        if not isinstance(tt, dict):
            d["traffic"].add("%s: no traffic object (recount %s)" % (el, short(rt, 120)))
        else:
            bad = []
            for f in ("bytes", "basis"):
                if tt.get(f, MISSING) != rt[f]:
                    bad.append("%s %s vs %s" % (f, short(tt.get(f, "absent"), 40), rt[f]))
            if not close(tt.get("bandwidth_Bps"), rt["bandwidth_Bps"]):
                bad.append("bandwidth_Bps %s vs %s" % (tt.get("bandwidth_Bps", "absent"), rt["bandwidth_Bps"]))
            if bool(tt.get("over_peak")) != rt["over_peak"]:
                bad.append("over_peak %s vs %s" % (tt.get("over_peak", "absent"), rt["over_peak"]))
            if rt["bytes"] is not None and not close(tt.get("peak_Bps"), rt["peak_Bps"]):
                bad.append("peak_Bps %s vs %s" % (tt.get("peak_Bps", "absent"), rt["peak_Bps"]))
            if bad:
                d["traffic"].add("%s: %s" % (el, ", ".join(bad)))
        bad = []
        for f in NULL_ARGS:
            if t.get(f, MISSING) != r["args"][f]:
                bad.append("%s tix %s vs trace %s" % (f, short(t.get(f, "absent"), 30), short(r["args"][f], 30)))
        if "graph_id" in t and t["graph_id"] != r["args"]["graph_id"]:
            bad.append("graph_id tix %s vs trace %s" % (t["graph_id"], r["args"]["graph_id"]))
        if bad:
            d["args"].add("%s: %s" % (el, ", ".join(bad)))
        if r["mangled_name"] is not None and r["mangled_name"] != r["name"] and \
                t.get("mangled_name") != r["mangled_name"]:
            d["mangled"].add("%s: mangled_name %s" % (el, short(t.get("mangled_name", "absent"), 60)))
        if r["mangled_name"] is None and t.get("mangled_name") is not None:
            d["mangled"].add("%s: mangled_name %s for a name not starting _Z" % (el, short(t["mangled_name"], 60)))
        if capture:
            cm, rm = t.get("capture_match", MISSING), r["capture_match"]
            if rm in ("aligned", "reordered"):
                key = (r["launch"]["start_ns"], r["launch"]["tid"])
                lab = labels.setdefault(key, ({}, {}))
                lab[0][cm] = lab[0].get(cm, 0) + 1
                lab[1][rm] = lab[1].get(rm, 0) + 1
            elif cm != rm:
                d["capture_match"].add("%s: tix %s vs recount %s" % (el, cm if cm is not MISSING else "absent", rm))
            cu = t.get("captured_under", MISSING)
            ru = r["captured_under"]
            cuf = [(f.get("name"), f.get("kind"), f.get("input_dims"), f.get("input_types"))
                   for f in cu] if isinstance(cu, list) else cu
            ruf = [(f["name"], f["kind"], f["input_dims"], f["input_types"]) for f in ru] \
                if isinstance(ru, list) else ru
            if cuf != ruf:
                d["captured_under"].add("%s: tix %s vs recount %s" % (
                    el, short([f[0] for f in cuf] if isinstance(cuf, list) else cuf, 150),
                    short([f[0] for f in ruf] if isinstance(ruf, list) else ruf, 150)))
            cs = t.get("capture_source", MISSING)
            cs = os.path.basename(cs) if isinstance(cs, str) else cs
            if cs != r["capture_source"]:
                d["capture_source"].add("%s: tix %s vs recount %s" % (el, cs if cs is not MISSING else "absent",
                                                                       r["capture_source"]))
    for key, (gt, gr) in labels.items():
        if gt != gr:
            d["capture_match"].add("replay launched at %s: labels tix %s vs recount %s" % (key[0], gt, gr))
    n = len(pairs)
    d["parents"].report(chk, "%s: parents = the recount's containment ancestors of the launch call" % label, n)
    d["shapes"].report(chk, "%s: parents' Input Dims / Input type = the trace's lists" % label, n)
    d["launch"].report(chk, "%s: launch call (R5: per process, nearest preceding)" % label, n)
    d["step"].report(chk, "%s: step of each GPU event (null before the trace)" % label, n)
    d["traffic"].report(chk, "%s: traffic (R6) = recount" % label, n)
    d["args"].report(chk, "%s: grid/block/registers/shared_mem/bytes as in the trace, null when absent" % label, n)
    d["mangled"].report(chk, "%s: demangled names carry mangled_name" % label, n)
    if capture:
        nrep = sum(1 for _, r in pairs if r["graph_replay"])
        d["capture_match"].report(chk, "%s: capture_match per replayed kernel" % label, nrep)
        d["captured_under"].report(chk, "%s: captured_under (frames, shapes) per replayed kernel" % label, nrep)
        d["capture_source"].report(chk, "%s: capture_source" % label, nrep)
    over = [ev_label(t) for t in tl if isinstance(t.get("traffic"), dict)
            and isinstance(t["traffic"].get("bandwidth_Bps"), (int, float))
            and isinstance(t["traffic"].get("peak_Bps"), (int, float))
            and t["traffic"]["bandwidth_Bps"] > t["traffic"]["peak_Bps"]]
    chk.check(not over, "%s: no bandwidth above the device's peak" % label, "; ".join(over[:4]))


def check_names(chk, label, kj):
    if kj is None:
        return
    rows = kj.get("kernels", [])
    noshort = [r["name"][:60] for r in rows if not isinstance(r.get("short_name"), str)]
    chk.check(not noshort, "%s: summary rows carry short_name" % label, "missing for %s" % noshort[:3])
    by = {}
    for r in rows:
        if isinstance(r.get("short_name"), str):
            by.setdefault(r["short_name"], set()).add(r["name"])
    shared = {s: sorted(n) for s, n in by.items() if len(n) > 1}
    chk.check(not shared, "%s: distinct names have distinct short names" % label,
              "; ".join("%r <- %s" % (s, [x[:80] for x in n]) for s, n in list(shared.items())[:3]))
    mangled = [r["name"][:60] for r in rows if r["name"].startswith("_Z")
               and recount.demangle(r["name"]) != r["name"]]
    chk.check(not mangled, "%s: no mangled name left in summary" % label, "%s" % mangled[:3])


def check_spans(chk, label, sj, launches):
    """Each step's GPU span (first start to last end of the GPU work the
    recount puts in it) and Busy% over the longer of Wall and the span:
    never above 100 (issue 20 item 4)."""
    if not sj:
        return
    lo, hi = {}, {}
    for x in launches:
        s = x["step"]
        if s is None or x["before_trace"]:
            continue
        lo[s] = min(lo.get(s, x["start_ns"]), x["start_ns"])
        hi[s] = max(hi.get(s, x["start_ns"] + x["dur_ns"]), x["start_ns"] + x["dur_ns"])
    got = [(s["index"], s.get("gpu_span_ns")) for s in sj["steps"]]
    want = [(s["index"], hi[s["index"]] - lo[s["index"]] if s["index"] in lo else None) for s in sj["steps"]]
    chk.eq(got, want, "%s: each step's GPU span = the recount's first start to last end" % label)
    over = [(s["index"], s["busy_pct"]) for s in sj["steps"] if s["busy_pct"] is not None and s["busy_pct"] > 100]
    chk.check(not over, "%s: Busy%% never above 100 (GPU busy over the longer of Wall and span)" % label, over[:4])


def check_text(args, chk, label, trace, extra=()):
    rc, out, err = tixtest.tix(args, "show", trace, "--kernel", ".", "--limit", "0", *extra)
    if not chk.check(rc == 0, "%s: tix show (text) exits 0" % label, err[:300]):
        return
    unknown = [ln.strip()[:120] for ln in out.splitlines()
               if re.search(r"registers -1\b|shared -1 B|(^|\s)-1 bytes|grid \[-1", ln)]
    chk.check(not unknown, "%s: show text prints '-' for unknowns, never -1" % label, " | ".join(unknown[:3]))
    unbalanced = [ln.strip()[:120] for ln in out.splitlines()
                  if "Input Dims" in ln and ln.count("[") != ln.count("]")]
    chk.check(not unbalanced, "%s: show text: Input Dims folded to one line" % label, " | ".join(unbalanced[:3]))
    # a copy's or memset's size is the trace's own: its bytes line never
    # blames shapes (issue 20 item 11)
    kind, blamed = None, []
    for ln in out.splitlines():
        m = re.match(r"#\d+\s+(\w+)\s", ln)
        if m:
            kind = m.group(1)
        elif kind in ("memcpy", "memset") and "bytes moved" in ln and "shapes" in ln:
            blamed.append("%s: %s" % (kind, ln.strip()[:120]))
    chk.check(not blamed, "%s: a copy's or memset's bytes line names its own reason, not shapes" % label,
              " | ".join(blamed[:3]))


# (recount key, what the line is about): R9; the number a line gives is its
# first integer ("968 GPU events were launched before the trace's CPU window",
# "2 of 138 kernels replayed from CUDA graphs are not attributed")
WARN_TOPICS = (
    ("truncated_at", r"truncat"),
    ("colliding_ids", r"correlation ids?"),
    ("no_gpu_activity", r"no GPU activity"),
    ("before_trace", r"before the trace"),
    ("not_attributed", r"not attributed"),
)


def expected_warnings(w):
    out = []
    for key, topic in WARN_TOPICS:
        v = w.get(key)
        if key == "truncated_at":
            want = v is not None
            n = None
        elif key == "no_gpu_activity":
            want = bool(v)
            n = w["launch_calls"] if v else None
        else:
            want = bool(v)
            n = v if v else None
        out.append((key, topic, want, n))
    return out


def check_warning_lines(chk, label, where, lines, w):
    for key, topic, want, n in expected_warnings(w):
        hits = [ln for ln in lines if re.search(topic, ln, re.I)]
        if want:
            ok = bool(hits)
            if ok and n is not None:
                ok = any(m and int(m.group(1)) == n
                         for m in (re.search(r"(?<![\w.])(\d+)\b", ln.split("warning:", 1)[-1]) for ln in hits))
            chk.check(ok, "%s: %s warns: %s%s" % (label, where, topic, "" if n is None else " (%d)" % n),
                      "warning lines: %s" % [ln[:150] for ln in lines][:6])
        else:
            chk.check(not hits, "%s: %s: no '%s' warning (recount finds none)" % (label, where, topic),
                      "%s" % [ln[:150] for ln in hits][:3])


def check_warnings(args, chk, label, trace, w, extra=()):
    tixf = os.path.join(args.work, re.sub(r"\W+", "_", label) + ".tix")
    rc, out, err = tixtest.tix(args, "index", trace, "-o", tixf, *extra)
    if not chk.check(rc == 0, "%s: tix index exits 0" % label, "rc %d %s" % (rc, err[:300])):
        return None
    rc, out, err = tixtest.tix(args, "info", tixf)
    if chk.check(rc == 0, "%s: tix info exits 0" % label, err[:300]):
        lines = [ln for ln in out.splitlines() if ln.lstrip().lower().startswith("warning")]
        check_warning_lines(chk, label, "tix info", lines, w)
    info = out if rc == 0 else ""
    # not the run that built the index: the warnings still come, on stderr
    # (the JSON on stdout stays clean), whether summary opens the .tix or
    # the trace again (its cached index)
    rc, out, err = tixtest.tix(args, "summary", tixf)
    if chk.check(rc == 0, "%s: tix summary of the .tix exits 0" % label, err[:300]):
        lines = [ln for ln in err.splitlines() if "warning" in ln.lower()]
        check_warning_lines(chk, label, "summary X.tix stderr", lines, w)
    for run in (1, 2):
        rc, out, err = tixtest.tix(args, "summary", trace, "--format", "json", *extra)
    if chk.check(rc == 0, "%s: tix summary (cached index) exits 0" % label, err[:300]):
        lines = [ln for ln in err.splitlines() if "warning" in ln.lower()]
        check_warning_lines(chk, label, "summary --format json stderr, cached index", lines, w)
    return info


def check_graph_info(chk, label, info, gi):
    m = re.search(r"graph replays:\s*(\d+) kernels?,\s*(\d+) attributed \(exact (\d+), aligned (\d+), "
                  r"reordered (\d+), positional (\d+)\),\s*(\d+) not attributed", info or "")
    want = (gi["kernels"], gi["attributed"], gi["exact"], gi["aligned"], gi["reordered"], gi["positional"],
            gi["not_attributed"])
    chk.check(m and tuple(int(x) for x in m.groups()) == want,
              "%s: tix info: graph replays: %d kernels, %d attributed (exact %d, aligned %d, reordered %d, "
              "positional %d), %d not attributed" % ((label,) + want),
              "info says %r" % (m.group(0) if m else [ln for ln in (info or "").splitlines() if "graph" in ln][:3]))


def check_export_step(args, chk, label, trace, ref_steps, partial=False):
    steps = ref_steps["steps"]
    # the last step with GPU work that has a step before it
    ns = [i for i, st in enumerate(steps) if i > 0 and st["gpu_events"] > 0]
    if not ns:
        return
    n = ns[-1]
    out = os.path.join(args.work, re.sub(r"\W+", "_", label) + ".step%d.json" % n)
    rc, o, err = tixtest.tix(args, "export", trace, "--step", n, "-o", out)
    if not chk.check(rc == 0, "%s: export --step %d exits 0" % (label, n), err[:300]):
        return
    sj, _ = tix_json(args, chk, label + " export", "summary", out, "--by", "step", "--format", "json", "--no-cache")
    if sj is not None:
        got = [(s["name"], s.get("gpu_events")) for s in sj.get("steps", [])]
        chk.eq(got, [(steps[n]["name"], steps[n]["gpu_events"])],
               "%s: export --step %d re-summarised is that one step (no phantom marker)" % (label, n))
    try:
        rs = recount.by_step(recount.load_trace(out))
        chk.eq([(s["name"], s["gpu_events"]) for s in rs["steps"]], [(steps[n]["name"], steps[n]["gpu_events"])],
               "%s: the recount of export --step %d finds that one step" % (label, n))
    except (OSError, ValueError) as e:
        chk.check(False, "%s: the export of step %d is JSON" % (label, n), str(e))


# ---------------------------------------------------------------------------

def one_trace(args, chk, path, label=None, captures=None, marker=None):
    """Every comparison on one trace; returns what named expectations use."""
    label = label or os.path.basename(path)
    partial = False
    try:
        tr = recount.load_trace(path, marker=marker)
    except ValueError:
        partial = True
        tr = recount.load_trace(path, partial=True, marker=marker)
    windows = recount.capture_windows(captures) if captures else None
    ref = {"tr": tr, "partial": partial, "steps": recount.by_step(tr, marker), "ops": recount.by_op(tr),
           "launches": recount.launches(tr, windows), "warnings": recount.warnings(tr, windows)}
    if windows is not None:
        ref["graph"] = recount.graph_info(tr, recount.attribute(tr, windows))
    extra = ["--graph-capture"] + list(captures) if captures else []
    mk = ["--step-marker", marker] if marker else []
    kj, sj, oj = compare_trace(args, chk, path, marker=marker, label=label, partial=partial, tr=tr)
    ref["tix_steps"], ref["tix_ops"] = sj, oj
    check_names(chk, label, kj)
    argv = ["show", path, "--kernel", ".", "--limit", "0", "--format", "json"] + mk
    if captures:
        argv += ["--no-cache"] + extra
    tj, _ = tix_json(args, chk, label, *argv, timeout=300)
    ref["tix_show"] = tj
    if tj is not None:
        compare_launches(chk, label, tj, ref["launches"], capture=bool(captures))
    check_text(args, chk, label, path, mk)
    check_spans(chk, label, sj, ref["launches"]["launches"])
    info = check_warnings(args, chk, label, path, ref["warnings"], extra + mk)
    if captures:
        check_graph_info(chk, label, info, ref["graph"])
    check_export_step(args, chk, label, path, ref["steps"], partial)
    return ref


def profilerstep_ancestors(launches, steps, pattern=r"ProfilerStep#\d+$"):
    """Launches whose step-marker ancestors are not exactly their own step."""
    bad = []
    for x in launches:
        if x.get("step") is None or not x.get("launch"):
            continue
        own = steps[x["step"]]["name"]
        ps = [p["name"] for p in x.get("parents", []) if re.match(pattern, p["name"])]
        if ps != [own]:
            bad.append("%s in %s: %s" % (ev_label(x), own, ps))
    return bad


def named_real(chk, name, ref):
    """The named expectations of issue 8 on a real trace: the recount (what
    the rules give) and tix (what it prints)."""
    tr = ref["tr"]
    rl = ref["launches"]["launches"]
    tl = (ref.get("tix_show") or {}).get("launches")
    rs = ref["steps"]
    ts = ref.get("tix_steps") or {}
    if name == "a100_transformer_with_stack.json.gz":
        st = rs["steps"]
        s9 = [i for i, s in enumerate(st) if s["name"] == "ProfilerStep#9"]
        for who, ls in (("recount", rl), ("tix", tl)):
            if ls is None:
                chk.check(False, "%s: %s show output" % (name, who))
                continue
            gem = [x for x in ls if s9 and x.get("step") == s9[0] and "gemm" in x["name"]]
            bad = [x for x in gem if any(p["name"] in ("ProfilerStep#7", "ProfilerStep#8") for p in x["parents"])
                   or "ProfilerStep#9" not in [p["name"] for p in x["parents"]]]
            chk.check(gem and not bad, "%s: %s: the %d step-9 GEMMs are under ProfilerStep#9, not #7/#8"
                      % (name, who, len(gem)), "; ".join("%s: %s" % (ev_label(x), [p["name"][:30] for p in x["parents"]])
                                                         for x in bad[:2]))
            bad = profilerstep_ancestors(ls, st)
            chk.check(not bad, "%s: %s: every launch's only ProfilerStep ancestor is its own step" % (name, who),
                      "; ".join(bad[:3]))
    elif name == "vllm_b200_eager.json.gz":
        want = ["execute_context_1(888_788544)_generation_0(0)"]
        chk.eq([s["name"] for s in rs["steps"]], want, "%s: recount finds the vLLM step" % name)
        chk.eq([s["name"] for s in ts.get("steps", [])], want, "%s: tix finds the vLLM step" % name)
        chk.eq(rs["steps"][0]["kernels"], 768, "%s: recount: 768 kernels in it" % name)
    elif name == "xdit_flux_torch_compile.json.gz":
        for who, ops in (("recount", ref["ops"]), ("tix", ref.get("tix_ops"))):
            rows = [o for o in (ops or {}).get("ops", []) if o["name"].startswith("CUDAGraphNode.record")]
            chk.check(len(rows) == 1 and rows[0]["gpu_events"] == 2 and abs(rows[0]["gpu_ns"] - 10850) <= 10,
                      "%s: %s: CUDAGraphNode.record covers 2 GPU events, 10.85 us" % (name, who),
                      "rows %s" % [(o["name"], o["gpu_events"], o["gpu_ns"]) for o in rows])
    elif name == "rocm_mi300_resnet_ddp.json.gz":
        for who, s in (("recount", rs), ("tix", ts)):
            chk.eq([x.get("kernels") for x in s.get("steps", [])], [746, 746, 746],
                   "%s: %s: each step launches 746 kernels" % (name, who))
            bt = s.get("before_trace") or {}
            chk.eq(bt.get("gpu_events"), 968, "%s: %s: 968 GPU events before the trace" % (name, who))
    elif name == "launches_without_gpu_activity.json.gz":
        w = ref["warnings"]
        chk.check(w["launch_calls"] == 270 and w["no_gpu_activity"],
                  "%s: recount: 270 launch calls and no GPU activity" % name, str(w))
    elif name == "kineto2021_resnet50_string_tids.json.gz":
        rt = {x["launch"]["tid"] for x in rl if x["launch"]}
        chk.check(rt and all(isinstance(t, str) for t in rt), "%s: recount: launch tids are strings %s"
                  % (name, sorted(rt)[:3]))
        if tl is not None:
            tt = {(x.get("launch") or {}).get("tid") for x in tl if x.get("launch")}
            chk.eq(sorted(tt, key=str), sorted(rt), "%s: tix: string tids printed as given" % name)
            nl = [(ev_label(x), p.get("input_types")) for x in tl for p in x.get("parents", [])
                  if "input_types" in p and not isinstance(p["input_types"], list)]
            chk.check(not nl, "%s: tix: every Input type is a list (no trailing newline kept)" % name,
                      "; ".join("%s: %r" % e for e in nl[:2]))
    elif name == "chrome_array_unclosed.json":
        chk.check(ref["partial"] and [e.name for e in tr.events] == ["gamma", "epsilon", "beta", "alpha"],
                  "%s: recount: salvaged, 4 events (two B/E pairs, two X)" % name)
        chk.check(ref["warnings"]["truncated_at"] is not None, "%s: recount: a truncation warning" % name)
        st = ts.get("steps", [])
        chk.eq([(s.get("name"), s.get("start_ns"), s.get("wall_ns")) for s in st], [("(whole trace)", 0, 14000)],
               "%s: tix: salvaged, one step 0..14 us" % name)


def named_pair(chk, name, ref, kernels):
    gi = ref["graph"]
    chk.check(gi["kernels"] == kernels and gi["exact"] == kernels,
              "%s: recount: all %d replayed kernels attributed, all exact" % (name, kernels), str(gi))
    tl = (ref.get("tix_show") or {}).get("launches") or []
    lab = {}
    for x in tl:
        if x.get("graph_replay"):
            lab[x.get("capture_match")] = lab.get(x.get("capture_match"), 0) + 1
    chk.eq(lab, {"exact": kernels}, "%s: tix: all %d replayed kernels exact" % (name, kernels))


def run_real(args, chk):
    if not os.path.isdir(args.real):
        print("skip: the real traces folder %s is not there (TIX_REAL_TRACES_DIR)" % args.real, flush=True)
        return SKIP
    names = sorted(f for f in os.listdir(args.real) if f.endswith(".json") or f.endswith(".json.gz"))
    chk.check(names, "traces in %s" % args.real)
    if not recount.demangler_available():
        chk.skip("demangled names", "c++filt (binutils) is not installed; names starting _Z compare as written")
    for f in names:
        path = tixtest.stage(os.path.join(args.real, f), args.work)
        ref = one_trace(args, chk, path, f)
        named_real(chk, f, ref)
    pairs = []
    for f in names:
        m = re.match(r"(.*)\.replay\.json(\.gz)?$", f)
        if m:
            caps = [c for c in names if c.startswith(m.group(1) + ".capture")]
            if caps:
                pairs.append((f, caps))
    chk.check(len(pairs) >= 2, "capture pairs found: %s" % pairs)
    expect = {"sglang_qwen3_decode.replay.json.gz": 544, "vllm_decode_full.replay.json.gz": 421}
    for f, caps in pairs:
        path = tixtest.stage(os.path.join(args.real, f), args.work)
        cpaths = [tixtest.stage(os.path.join(args.real, c), args.work) for c in caps]
        label = "%s + %s" % (f, ", ".join(caps))
        ref = one_trace(args, chk, path, label, captures=cpaths)
        if f in expect:
            named_pair(chk, f, ref, expect[f])
    if args.hta:
        if not os.path.isdir(args.hta):
            chk.skip("HTA traces", "%s is not there" % args.hta)
        else:
            for f in sorted(os.listdir(args.hta)):
                if f.endswith(".json") or f.endswith(".json.gz"):
                    one_trace(args, chk, tixtest.stage(os.path.join(args.hta, f), args.work), f)
    return chk.done()


# ---------------------------------------------------------------------------
# generated variants

GEN = [
    # label, generator options, capture?, check
    ("with_stack", ["--steps", 3, "--layers", 2, "--python-frames", "--with-stack"], False, "stack"),
    ("graph_rocm", ["--steps", 2, "--layers", 2, "--marker", "sglang", "--bs", 2, "--graph",
                    "--capture-batches", "8,4,1", "--capture-names", "rocm"], True, "exact"),
    ("graph_rocm_reorder", ["--steps", 2, "--layers", 2, "--marker", "sglang", "--bs", 2, "--graph",
                            "--capture-batches", "8,4,1", "--capture-names", "rocm", "--graph-reorder"],
     True, "reorder"),
    ("graph_rocm_extra", ["--steps", 2, "--layers", 2, "--marker", "sglang", "--bs", 2, "--graph",
                          "--capture-batches", "8,4,1", "--capture-names", "rocm", "--graph-extra-kernel"],
     True, "extra"),
    ("graph_nvidia", ["--steps", 2, "--layers", 2, "--marker", "sglang", "--bs", 2, "--graph",
                      "--capture-batches", "8,4,1", "--capture-names", "nvidia"], True, "positional"),
    ("graph_nvidia_ambiguous", ["--steps", 2, "--layers", 2, "--marker", "sglang", "--bs", 16, "--graph",
                                "--capture-batches", "8,4,1", "--capture-names", "nvidia"], True, "ambiguous"),
    ("two_processes", ["--steps", 2, "--layers", 2, "--two-processes"], False, "processes"),
    ("pre_window", ["--steps", 2, "--layers", 2, "--pre-window", 9], False, "pre"),
    ("stack_two_processes_pre_window", ["--steps", 2, "--layers", 2, "--python-frames", "--with-stack",
                                        "--two-processes", "--pre-window", 5], False, "stack+processes+pre"),
]


def named_generated(chk, label, check, ref, truth):
    rl = ref["launches"]["launches"]
    tl = (ref.get("tix_show") or {}).get("launches")
    rs, ts = ref["steps"], ref.get("tix_steps") or {}
    both = (("recount", rl), ("tix", tl))
    if "stack" in check:
        for who, ls in both:
            if ls is not None:
                bad = profilerstep_ancestors(ls, rs["steps"])
                chk.check(not bad, "%s: %s: each launch's only ProfilerStep ancestor is its own step" % (label, who),
                          "; ".join(bad[:3]))
                stale = [ev_label(x) for x in ls if any(p["name"].startswith(("torch/profiler/profiler.py",
                                                                              "torch/autograd/profiler.py"))
                                                       for p in x.get("parents", []))]
                chk.check(not stale, "%s: %s: no profiler.step() frame above a launch" % (label, who),
                          "; ".join(stale[:3]))
        want = [(s["name"], s["start_ns"], s["wall_ns"], s["kernels"]) for s in truth["steps"]
                if "pid" not in s]
        got = [(s["name"], s["start_ns"], s["wall_ns"], s["kernels"]) for s in rs["steps"]]
        if "processes" not in check:
            chk.eq(got, want, "%s: recount steps = the generator's truth" % label)
    if "processes" in check:
        for who, ls in both:
            if ls is not None:
                bad = [ev_label(x) for x in ls if x.get("launch") and
                       (x["launch"].get("pid"), x.get("device")) not in ((truth["processes"][0], 0),
                                                                         (truth["processes"][1], 1))]
                chk.check(not bad, "%s: %s: each GPU event linked to a launch of its own process" % (label, who),
                          "; ".join(bad[:3]))
        chk.check(ref["warnings"]["colliding_ids"] > 0, "%s: recount: colliding correlation ids (%d)"
                  % (label, ref["warnings"]["colliding_ids"]))
    if "pre" in check:
        want = {k: truth["before_trace"][k] for k in ("gpu_events", "kernels", "kernel_ns")}
        for who, s in (("recount", rs), ("tix", ts)):
            bt = s.get("before_trace") or {}
            chk.eq({k: bt.get(k) for k in want}, want, "%s: %s: before_trace = the pre-window work" % (label, who))
        if "processes" not in check:
            chk.eq([s["kernels"] for s in rs["steps"]], [s["kernels"] for s in truth["steps"]],
                   "%s: recount: no step inflated by the pre-window work" % label)
    g = ref.get("graph")
    if g is not None:
        n = g["kernels"]
        steps = len(truth["steps"])
        want = {"exact": {"exact": n}, "positional": {"positional": n}, "ambiguous": {"ambiguous": n}}.get(check)
        lab = {k: g[k] for k in ("exact", "aligned", "reordered", "positional", "ambiguous", "none") if g[k]}
        if check == "reorder":
            chk.check(g["attributed"] == n and g["reordered"] >= steps,
                      "%s: recount: a local reorder keeps every kernel attributed (%s)" % (label, lab))
        elif check == "extra":
            chk.check(g["not_attributed"] == steps and g["attributed"] == n - steps,
                      "%s: recount: only the extra kernel of each replay is not attributed (%s)" % (label, lab))
            names = {x["name"] for x in rl if x["graph_replay"] and x["capture_match"] == "none"}
            chk.eq(names, {truth["graph"]["extra_kernel_name"]}, "%s: recount: the unattributed one is the extra"
                   % label)
        else:
            chk.eq(lab, want, "%s: recount: capture_match of the %d replayed kernels" % (label, n))
        if check in ("exact", "positional"):
            bs = truth["args"]["bs"]
            lab_bs = min(b for b in truth["graph"]["capture_batches"] if b >= bs)
            outer = {x["captured_under"][0]["name"] for x in rl if x["graph_replay"] and x["captured_under"]}
            chk.eq(outer, {"capture_%d_DECODE" % lab_bs}, "%s: recount: attributed to the capture of bs %d"
                   % (label, lab_bs))


def run_generated(args, chk):
    for label, opts, capture, check in GEN:
        path = os.path.join(args.work, label + ".json")
        truth = path + ".truth.json"
        cap = os.path.join(args.work, label + ".capture.json") if capture else None
        tixtest.generate(path, *(opts + (["--capture-out", cap] if cap else [])), truth=truth)
        with open(truth) as f:
            t = json.load(f)
        ref = one_trace(args, chk, path, label, captures=[cap] if cap else None)
        named_generated(chk, label, check, ref, t)
    return chk.done()


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--real", help="folder of the real traces (../shared/traces/real)")
    p.add_argument("--hta", help="folder of more traces compared the same way (../shared/traces)")
    p.add_argument("--generated", action="store_true", help="the generator's issue-8 variants")
    args = p.parse_args()
    if not args.real and not args.generated:
        p.error("--real DIR or --generated")
    if args.real and not os.path.isdir(args.real):
        print("skip: the real traces folder %s is not there (TIX_REAL_TRACES_DIR)" % args.real, flush=True)
        return SKIP
    args = tixtest.setup(args)
    chk = tixtest.Checker("e2e_real" if args.real else "e2e_rules_generated")
    if args.real:
        return run_real(args, chk)
    return run_generated(args, chk)


if __name__ == "__main__":
    sys.exit(main())

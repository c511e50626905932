#!/usr/bin/env python3
"""The faces agree: the TUI and the CLI print the same figures for the same
selection (issue 10).  On seeded generated traces (and real ones when the
shared corpus is there) it opens the real tix TUI in tmux at a size where
every column shows and no name is cut, visits every table view and compares
each screen, row by row and cell by cell, with the CLI's text for the same
selection:

  Steps                        tix summary --by step --top 0
  Kernels of all steps (2)     tix summary --top 0
  Launches of a kernel         tix show --kernel '^NAME$' --limit 0 --format csv
  Ops (5, from "all")          tix summary --by op --top 0
  Kernels beneath an op        tix show --kernel . --limit 0 --format json:
                               the launches whose launch call has the op
                               among its ancestors, totalled per kernel (the
                               CLI has no view of its own for this one)
  ... sorted by s               tix summary [--by op] --sort KEY --top 0
  Kernels of step N (Enter)    tix summary --step N --top 0
  Launches of a kernel         tix show --kernel '^NAME$' --step N --limit 0 --format csv
  Ops of step N (5)            tix summary --by op --step N --top 0
  Ranks (tix RANK0 RANK1 ...)  tix summary RANK0 RANK1 ... --by rank
  Compare (tix --diff B N):    tix diff B N --by kernel|op|step|shape --top 0, and the
    kernels, ops (5), steps   header's per-step totals; the launches of a kernel on both
    (1), shapes (p), launches sides (Enter) against show on each side

The summary screens are compared text for text (durations, percentages,
counts, grids, short names, "-").  For launches the CSV's raw values are
formatted here with the one rounding of index/view (828.1 us) and must give
the text on screen.  Where the screen and the CLI differ it says the trace,
the view, the row and the column.  The columns (titles, widths, alignment,
drop order) are index/view's own (tui_view_cols prints them), and the TUI's layout
(tui/table.c, table_layout) is redone here to cut screen lines into cells;
the header on screen is checked against it first.

usage: faces.py --tix TIX --cols VIEW_COLS --gen GEN_TRACE.py --work DIR [--traces DIR]
Exit 0 pass, 1 fail, 77 skip (tmux missing).
"""

import argparse
import csv
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
# real traces from the shared corpus (when it is there): memcpy/memset and
# ProfilerStep#N; 68K events of 8-GPU training; ROCm with long names
REAL = ["sampled_train_rank1.json.gz", "v100_8gpu_train.pt.trace.json.gz",
        "mi250_rocm_train.json.gz"]
ARROWS = ("▼", "▲", "v", "^")

FAILS = []
CHECKS = [0]
QUIET = [False]


def fail(msg):
    FAILS.append(msg)
    if not QUIET[0]:
        print("FAIL: " + msg, flush=True)


def note(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------- columns

class Col:
    def __init__(self, title, width, flags, prio, key, unit, bits):
        self.title, self.width, self.prio, self.key, self.unit = title, width, prio, key, unit
        self.right = bool(flags & bits["RIGHT"])
        self.bar = bool(flags & bits["BAR"])
        self.flex = bool(flags & bits["FLEX"])
        self.fit = bool(flags & bits["FIT"])
        self.data = bool(flags & bits["DATA"])

    def shown(self):
        """A column of the text output and of the screen (less the bar)."""
        return not (self.data or self.bar)


def read_columns(helper):
    """The views' column tables (index/view), as tests/tui/view_cols.c prints
    them: kind -> [Col]."""
    out = subprocess.run([helper], stdout=subprocess.PIPE, check=True).stdout.decode("utf-8")
    bits, views = {}, {}
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "flag":
            bits[f[1]] = int(f[2])
            continue
        kind, title, width, flags, prio, key, unit = f
        views.setdefault(kind, []).append(Col(title, int(width), int(flags), int(prio), key or None,
                                              unit, bits))
    for k in ("steps", "kernels", "launches", "ops"):
        if k not in views:
            raise SystemExit("FAIL: %s printed no %s columns" % (helper, k))
    return views


# ---------------------------------------------------------------- the one rounding

def fmt_dur(ns):
    if ns < 0:
        return "-"
    if ns < 1000:
        return "%d ns" % ns
    if ns < 1000000:
        return "%.1f us" % (ns / 1e3)
    if ns < 1000000000:
        return "%.2f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def fmt_time(ns):
    return ("-" if ns < 0 else "+") + fmt_dur(abs(ns))


def fmt_count(n):
    return "{:,}".format(n)


def fmt_scaled(v, unit):
    prefix = ["", "k", "M", "G", "T", "P", "E"]
    p = 0
    while abs(v) >= 1000 and p < 6:
        v /= 1000
        p += 1
    if p == 0:
        return "%.0f %s" % (v, unit)
    return ("%.1f %s%s" if abs(v) >= 100 else "%.2f %s%s") % (v, prefix[p], unit)


# ---------------------------------------------------------------- the CLI

class Cli:
    def __init__(self, tix, env):
        self.tix, self.env = tix, env

    def run(self, *argv):
        p = subprocess.run([self.tix] + [str(a) for a in argv], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=self.env, timeout=300)
        out = p.stdout.decode("utf-8", "replace")
        if p.returncode != 0:
            raise RuntimeError("tix %s: exit %d: %s" % (" ".join(map(str, argv)), p.returncode,
                                                       p.stderr.decode("utf-8", "replace")))
        return out

    def csv(self, *argv):
        return list(csv.DictReader(io.StringIO(self.run(*argv, "--format", "csv"))))

    def json(self, *argv):
        return json.loads(self.run(*argv, "--format", "json"))


def split_text(lines, cols, what):
    """The CLI's text table (header first) cut into cells.  rows_text pads
    each column to its widest text and puts two blanks between columns; a
    right-aligned title ends where its column ends, a left-aligned one starts
    where it starts.  Between a left-aligned column and a right-aligned one
    the gap is the two blanks that every line has, with text touching them
    on both sides."""
    cols = [c for c in cols if c.shown()]
    head = lines[0]
    anchors, pos = [], 0
    for c in cols:
        i = head.find(c.title, pos)
        if i < 0:
            raise RuntimeError("%s: the CLI's header has no column %r: %r" % (what, c.title, head))
        anchors.append((i, i + len(c.title)))
        pos = i + len(c.title)
    wide = max(len(s) for s in lines) + 4
    pad = [s.ljust(wide) for s in lines]
    starts, ends = [0], []
    for k in range(len(cols) - 1):
        if cols[k].right:
            end = anchors[k][1]
        elif not cols[k + 1].right:
            end = anchors[k + 1][0] - 2
        else:
            cand = [p for p in range(anchors[k][1], anchors[k + 1][0] - 1)
                    if all(s[p] == " " and s[p + 1] == " " for s in pad)
                    and any(s[p - 1] != " " for s in pad) and any(s[p + 2] != " " for s in pad)]
            if len(cand) != 1:
                raise RuntimeError("%s: cannot tell columns %r and %r apart in the CLI's text"
                                   % (what, cols[k].title, cols[k + 1].title))
            end = cand[0]
        ends.append(end)
        starts.append(end + 2)
    rows = []
    for s in lines[1:]:
        cells = {}
        for k, c in enumerate(cols):
            seg = s[starts[k]:ends[k]] if k < len(ends) else s[starts[k]:]
            cells[c.title] = seg.strip()
        rows.append(cells)
    return rows


def text_table(out, first):
    """The table's lines of a text output: from its header (which starts
    with `first`) to the end, or to the blank line before what follows it
    (diff's findings section)."""
    lines = out.rstrip("\n").split("\n")
    for i, s in enumerate(lines):
        if s.lstrip().startswith(first):
            rest = lines[i:]
            return rest[:rest.index("")] if "" in rest else rest
    raise RuntimeError("no table header starting %r in:\n%s" % (first, out))


def ere_escape(s):
    return "^" + re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", s) + "$"


# ---------------------------------------------------------------- the TUI

def fit_widths(cols, rows):
    """The widths of the FIT columns: their longest text (the model's
    tix_view_width), from the CLI's cells of the same rows."""
    return {i: max([1] + [len(r.get(c.title, "")) for r in rows]) for i, c in enumerate(cols) if c.fit}


def layout(cols, width, fitw):
    """tui/table.c's table_layout: the width of each column (-1: dropped).
    A header is never cut: a column is at least its title and a sort arrow."""
    w = [-1 if c.data else c.width if c.bar else max(c.width, len(c.title) + 1) for c in cols]
    # a number that fits its content is never cut: its width is at least that
    w = [max(x, fitw.get(i, 1)) if x >= 0 and c.fit and c.right else x for i, (x, c) in
         enumerate(zip(w, cols))]
    while True:
        total, flex, maxprio, drop = 0, -1, 0, -1
        for i, c in enumerate(cols):
            if w[i] < 0:
                continue
            total += w[i] + 1
            if c.flex:
                flex = i
            if c.prio > maxprio:
                maxprio, drop = c.prio, i
        if total - 1 <= width or drop < 0:
            room = width - (total - 1)
            # a flexible column that fits its content first, then the others
            for i, c in sorted(enumerate(cols), key=lambda ic: not ic[1].flex):
                if w[i] >= 0 and c.fit and not c.right:
                    add = min(fitw.get(i, 1) - w[i], room)
                    if add > 0:
                        w[i] += add
                        room -= add
            if flex >= 0 and room > 0:
                w[flex] += room
            return w
        w[drop] = -1


def need_width(cols, rows):
    """The terminal width at which every column shows and the flexible one
    holds its longest text (rows: the CLI's cells)."""
    total = 0
    for c in cols:
        if c.data:
            continue
        w = c.width if c.bar else max(c.width, len(c.title) + 1)
        if c.fit or c.flex:
            w = max([w] + [len(r.get(c.title, "")) for r in rows])
        total += w + 1
    return total - 1


class Screen:
    def __init__(self, work, tix, env, width, height, trace):
        self.sock = "faces-%d" % os.getpid()
        self.t = ["tmux", "-L", self.sock, "-f", "/dev/null"]
        self.height = height
        cmd = "env %s %s %s; sleep 600" % (
            " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(env.items()) if k in
                     ("LANG", "LC_ALL", "TZ", "HOME", "XDG_CACHE_HOME", "TERM")),
            shlex.quote(tix), " ".join(shlex.quote(a) for a in trace))
        self.tmux("kill-session", "-t", "f", check=False)
        self.tmux("new-session", "-d", "-s", "f", "-x", str(width), "-y", str(height), "-c", work, cmd)

    def tmux(self, *a, check=True):
        p = subprocess.run(self.t + list(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and p.returncode != 0:
            raise RuntimeError("tmux %s: %s" % (" ".join(a), p.stderr.decode()))
        return p.stdout.decode("utf-8", "replace")

    def close(self):
        self.tmux("kill-server", check=False)

    def capture(self):
        lines = [s.rstrip() for s in self.tmux("capture-pane", "-p", "-t", "f").split("\n")]
        return (lines + [""] * self.height)[:self.height]

    def keys(self, *k):
        self.tmux("send-keys", "-t", "f", *k)

    def text(self, s):
        self.tmux("send-keys", "-t", "f", "-l", s)

    def wait(self, ok, what, timeout=60):
        """The screen once ok(lines) holds and two captures agree."""
        prev, t0 = None, time.time()
        while time.time() - t0 < timeout:
            cur = self.capture()
            if ok(cur) and cur == prev:
                return cur
            prev = cur
            time.sleep(0.1)
        raise RuntimeError("the screen never showed %s:\n%s" % (what, "\n".join(prev or [])))

    def view(self, name, crumb_end=None, at=None, sort=None):
        """Waits for view `name` (its status line), the breadcrumb ending in
        crumb_end, the cursor at position `at`, sorted by `sort`."""
        def ok(ls):
            st = ls[-2]
            if not st.startswith(name + ":"):
                return False
            if sort is not None and not st.endswith("sort: " + sort):
                return False
            if at is not None and not re.search(r"\bat %d\b" % at, st):
                return False
            return crumb_end is None or ls[0].endswith(crumb_end)
        return self.wait(ok, "the %s view%s" % (name, " at %s" % at if at else ""))


def screen_rows(lines, cols, width, fitw, what, hy=1):
    """The rows on a screen cut into cells by the TUI's layout, after the
    header on screen (line hy) was checked against it.  Returns (rows, sort
    title, status line); rows are dicts title -> text."""
    w = layout(cols, width, fitw)
    dropped = [c.title for i, c in enumerate(cols) if not c.data and w[i] < 0]
    if dropped:
        raise RuntimeError("%s: columns %s dropped at width %d" % (what, dropped, width))
    xs, x = [], 0
    for i in range(len(cols)):
        xs.append(x)
        if w[i] >= 0:
            x += w[i] + 1
    last = max(i for i in range(len(cols)) if w[i] >= 0)  # takes the rest of the line
    head, sort = lines[hy], None
    for i, c in enumerate(cols):
        if w[i] < 0 or c.bar:
            continue
        t = head[xs[i]:xs[i] + w[i]].strip() if i != last else head[xs[i]:].strip()
        if t != c.title and t not in [c.title + a for a in ARROWS]:
            raise RuntimeError("%s: the header on screen has %r where the layout puts %r "
                               "(columns at x=%d, width %d):\n%s"
                               % (what, t, c.title, xs[i], w[i], head))
        if t != c.title:
            sort = c.title
    rows = []
    for s in lines[hy + 1:-2]:
        if not s.strip():
            break
        if s.startswith("(nothing here)"):
            break
        cells = {}
        for i, c in enumerate(cols):
            if w[i] < 0 or not c.shown():
                continue
            seg = s[xs[i]:] if i == last else s[xs[i]:xs[i] + w[i]]
            cells[c.title] = seg.strip()
            if i != last and len(s) > xs[i] + w[i] and s[xs[i] + w[i]] != " ":
                cells[c.title] += "<no blank after the column>"
        rows.append(cells)
    return rows, sort, lines[-2]


# ---------------------------------------------------------------- comparing

def label(r):
    if "Rank" in r:
        return "step %s, rank %s" % (r.get("Step"), r.get("Rank"))
    for k in ("Name", "Op", "#", "Step"):
        if r.get(k):
            return r[k]
    return "?"


# Differences found and reported, not yet decided: (view, column) -> why.
# Only a name cut on screen (a leading namespace dropped, or "…" in the
# middle) is let through there; any other difference still fails, and so
# does an entry that no longer differs (remove it when the product is fixed).
KNOWN = {
}
KNOWN_SEEN = {}


def is_cut(a, b):
    """a is b as name_fit cuts it: leading namespaces dropped, the middle
    replaced by an ellipsis."""
    if a is None or b is None or a == b:
        return False
    if b.endswith(a):
        return True
    if "…" in a:
        head, tail = a.split("…", 1)
        return head in b and b.endswith(tail) and len(b) > len(a)
    return False


def known(what, t, a, b):
    for (view, col), why in KNOWN.items():
        if view in what and col == t and is_cut(a, b):
            KNOWN_SEEN.setdefault((view, col), [0, what, a, b])[0] += 1
            return True
    return False


def compare(what, got, want, cols, start=0, tolerant=()):
    """got: the screen's rows; want: the expected rows (same dict shape);
    start: position of got[0] among the expected rows."""
    CHECKS[0] += 1
    n0 = len(FAILS)
    titles = [c.title for c in cols if c.shown()]
    exp = want[start:start + len(got)]
    if len(exp) != len(got):
        fail("%s: %d rows on screen from position %d, the CLI has %d there (of %d)"
             % (what, len(got), start + 1, len(exp), len(want)))
    for k, (g, e) in enumerate(zip(got, exp)):
        for t in titles:
            a, b = g.get(t), e.get(t)
            if a == b:
                continue
            if t in tolerant and tolerant[t](a, b):
                continue
            if known(what, t, a, b):
                continue
            fail("%s: row %d (%s), column %r: screen %r, CLI %r"
                 % (what, start + k + 1, label(e), t, a, b))
            if len(FAILS) - n0 >= 20:
                fail("%s: (more differences left out)" % what)
                return False
    return len(FAILS) == n0


def pct_close(a, b):
    """Occ%: the CSV's %.3f and the screen's %.1f of one double."""
    try:
        return abs(float(a) - float(b)) <= 0.0505 and re.fullmatch(r"-?\d+\.\d", a) is not None
    except (TypeError, ValueError):
        return False


def self_check(cols):
    """The comparison catches a changed cell, naming its row and column."""
    rows = [{c.title: "x%d" % i for i, c in enumerate(cols) if c.shown()} for _ in range(3)]
    bad = [dict(r) for r in rows]
    t = [c.title for c in cols if c.shown()][1]
    bad[1][t] = "changed"
    before = len(FAILS)
    QUIET[0] = True
    ok = compare("self-check", rows, bad, cols)
    QUIET[0] = False
    caught = FAILS[before:]
    del FAILS[before:]
    want = "row 2 (%s), column %r" % (label(bad[1]), t)
    if ok or len(caught) != 1 or want not in caught[0]:
        fail("self-check: a changed cell was not reported as %s: %r" % (want, caught))


class Visit:
    """Compares the view on screen with the expected rows: the status line's
    count, then every row and cell; a view longer than the screen is
    compared on its first and (End) its last page.  hy: the header's line."""

    def __init__(self, scr, width, height, hy=1):
        self.scr, self.width, self.hy = scr, width, hy
        self.body = height - 3 - hy

    def __call__(self, what, lines, cols, want, fitw=None, tolerant=()):
        scr, body = self.scr, self.body
        got, sort, status = screen_rows(lines, cols, self.width, fitw or {}, what, self.hy)
        m = re.search(r":\s+([\d,]+) ", status)
        if not m or int(m.group(1).replace(",", "")) != len(want):
            fail("%s: the status line says %r, the CLI has %d rows" % (what, status, len(want)))
        ok = compare(what, got, want, cols, tolerant=tolerant)
        if len(want) > body:
            # the last page too: End, then the rows up to the last
            scr.keys("End")
            lines = scr.view(status.split(":")[0], at=len(want))
            got, _, _ = screen_rows(lines, cols, self.width, fitw or {}, what, self.hy)
            ok = compare(what + " (last page)", got, want, cols, start=len(want) - len(got),
                         tolerant=tolerant) and ok
            scr.keys("Home")
            scr.view(status.split(":")[0], at=1)
        note("%s  %s: %d rows%s" % ("ok  " if ok else "FAIL", what, len(want),
                                      "" if len(want) <= body else
                                      " (first and last %d compared)" % body))


# ---------------------------------------------------------------- one trace

def launch_rows(rows, base):
    """Expected Launches cells from show's CSV; base: the ns Start counts
    from (None: offset_ns, from the trace's first event)."""
    out = []
    for r in rows:
        def opt(k, f=str):
            return f(r[k]) if r[k] != "" else "-"
        start = int(r["offset_ns"]) if base is None else int(r["start_ns"]) - base
        out.append({
            "#": r["index"], "Start": fmt_time(start),
            "Duration": opt("dur_ns", lambda v: fmt_dur(int(v))),
            "Grid": opt("grid"), "Block": opt("block"), "Regs": opt("registers"),
            "Shared": opt("shared_bytes", lambda v: fmt_scaled(float(v), "B")),
            "Stream": opt("stream"),
            "Occ%": opt("occupancy_pct", lambda v: "%.1f" % float(v)),
            "Step": opt("step"), "Launched by": r["launched_by"] if r["launched_by"] else "-",
        })
    return out


def beneath_op(launches, op, op_gpu_ns, kernels_all):
    """Expected Kernels-beneath-an-op rows: the launches whose launch call
    has an ancestor named op, totalled per kernel; grid and block are the
    kernel's (its most common launch), Med..StdDev "-" (not the op's own)."""
    by = {}
    for ln in launches:
        if ln.get("dur_ns") is None or not any(p["name"] == op for p in ln.get("parents") or []):
            continue
        key = (ln["name"], ln["kind"])
        t = by.setdefault(key, [0, 0, ln.get("short_name") or ln["name"]])
        t[0] += ln["dur_ns"]
        t[1] += 1
    order = {r["Name"]: i for i, r in enumerate(kernels_all)}
    grid = {r["Name"]: (r["Grid"], r["Block"]) for r in kernels_all}
    rows = []
    for (name, kind), (tot, n, short) in by.items():
        g, b = grid.get(short, ("?", "?"))
        rows.append({"Time%": "%.1f" % (100.0 * tot / op_gpu_ns) if op_gpu_ns > 0 else "-",
                     "Total": fmt_dur(tot), "Instances": fmt_count(n), "Avg": fmt_dur(tot // n),
                     "Med": "-", "Min": "-", "Max": "-", "StdDev": "-", "Grid": g, "Block": b,
                     "Name": short, "_ns": tot})
    rows.sort(key=lambda r: (-r["_ns"], order.get(r["Name"], 1 << 30)))
    return rows


def check_trace(args, views, name, path, extra, step):
    note("== %s (%s)" % (name, os.path.basename(path)))
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TZ="UTC", HOME=args.work,
               XDG_CACHE_HOME=os.path.join(args.work, "xdg-cache"), TERM="screen")
    cli = Cli(args.tix, env)
    tr = [path] + extra
    K, S, L, O = views["kernels"], views["steps"], views["launches"], views["ops"]

    # the CLI's faces of the selections, first: they size the terminal
    steps = split_text(text_table(cli.run("summary", *tr, "--by", "step", "--top", "0"), "#"), S,
                       name + " steps")
    # step N: the one asked for if it ran kernels, else the first that did;
    # a step without any is visited too (an empty table on both faces)
    real = [r for r in steps[1:] if r["#"] != "-"]
    busy = [int(r["#"]) for r in real if r["Kernels"] != "0"]
    if not busy:
        raise RuntimeError("%s: no step ran a kernel" % name)
    step = step if step in busy else busy[0]
    idle = next((int(r["#"]) for r in real if r["Kernels"] == "0"), None)
    steps_csv = cli.csv("summary", *tr, "--by", "step", "--top", "0")
    step_start = {int(r["index"]): int(r["start_ns"]) for r in steps_csv if r["index"] != ""}
    kall = split_text(text_table(cli.run("summary", *tr, "--top", "0"), "Time%"), K,
                      name + " kernels")
    kall_json = cli.json("summary", *tr, "--top", "0")["kernels"]
    kstep = split_text(text_table(cli.run("summary", *tr, "--step", step, "--top", "0"), "Time%"),
                       K, name + " kernels of step %d" % step)
    kstep_json = cli.json("summary", *tr, "--step", step, "--top", "0")["kernels"]
    ops_all = split_text(text_table(cli.run("summary", *tr, "--by", "op", "--top", "0"), "GPU%"),
                         O, name + " ops")
    ops_csv = cli.csv("summary", *tr, "--by", "op", "--top", "0")
    ops_step = split_text(text_table(cli.run("summary", *tr, "--by", "op", "--step", step,
                                             "--top", "0"), "GPU%"), O,
                          name + " ops of step %d" % step)
    kidle = []
    if idle is not None:
        kidle = split_text(text_table(cli.run("summary", *tr, "--step", idle, "--top", "0"),
                                      "Time%"), K, name + " kernels of step %d" % idle)

    # the drills: the last kernel of all steps; in step N the top one and a
    # copy (or the second); the top op that is not a captured one
    drills = []
    last = len(kall)
    drills.append(("all", last, kall_json[last - 1]))
    pick2 = next((i for i, k in enumerate(kstep_json) if k["kind"] != "kernel"),
                 1 if len(kstep_json) > 1 else None)
    for pos in [0] + ([pick2] if pick2 not in (None, 0) else []):
        drills.append(("step", pos + 1, kstep_json[pos]))
    shows = {}
    for scope, pos, k in drills:
        a = [*tr, "--kernel", ere_escape(k["name"]), "--limit", "0"]
        if scope == "step":
            a += ["--step", step]
        shows[(scope, pos)] = cli.csv("show", *a)
    op_pos = next((i for i, r in enumerate(ops_csv) if r.get("captured") not in ("1", "true")), None)
    under = []
    if op_pos is not None:
        op = ops_csv[op_pos]["name"]
        launches = cli.json("show", *tr, "--kernel", ".", "--limit", "0")["launches"]
        under = beneath_op(launches, op, int(ops_csv[op_pos]["gpu_ns"]), kall)

    fit = {}
    for i, c in enumerate(S):
        if c.fit:
            fit[i] = max(1, max(len(r[c.title]) for r in steps))
    lrows = {key: launch_rows(rows, None if key[0] == "all" else step_start[step])
             for key, rows in shows.items()}
    width = max([220, need_width(S, steps), need_width(K, kall), need_width(K, kstep),
                 need_width(O, ops_all), need_width(O, ops_step), need_width(K, under)] +
                [need_width(L, r) for r in lrows.values()])
    longest = max([len(steps), len(kall), len(kstep), len(ops_all), len(ops_step), len(under)] +
                  [len(r) for r in lrows.values()])
    height = max(60, min(longest + 5, args.max_height))

    scr = Screen(args.work, args.tix, env, width, height, tr)
    try:
        visit = Visit(scr, width, height)

        def sort_next(what, view, cols, now, by):
            """s sorts by the next column on screen: the same order as
            --sort KEY (ties in the view's own order on both faces)."""
            shown = [c for c in cols if c.shown()]
            nxt = shown[[c.title for c in shown].index(now) + 1]
            scr.text("s")
            lines = scr.view(view, sort=nxt.title)
            want = split_text(text_table(cli.run("summary", *tr, *by, "--sort", nxt.key, "--top", "0"),
                                         shown[0].title), cols, what)
            visit("%s sorted by %s (--sort %s)" % (what, nxt.title, nxt.key), lines, cols, want)

        # the index's warnings hold the status line until a key: Ctrl-L
        scr.wait(lambda ls: ls[0].startswith("tix "), "tix's first screen")
        scr.keys("C-l")
        lines = scr.view("Steps")
        visit(name + ": Steps", lines, S, steps, fit)

        # Kernels of all steps (2 on "all"), then the launches of the last one
        scr.text("2")
        lines = scr.view("Kernels", "all steps")
        visit(name + ": Kernels of all steps", lines, K, kall)
        scr.text(":%d" % last)
        scr.keys("Enter")
        scr.view("Kernels", "all steps", at=last)
        scr.keys("Enter")
        lines = scr.view("Launches")
        visit(name + ": Launches of %s (all steps)" % kall[last - 1]["Name"], lines, L,
              lrows[("all", last)], tolerant={"Occ%": pct_close})
        scr.keys("BSpace")
        scr.view("Kernels", "all steps")
        sort_next(name + ": Kernels of all steps", "Kernels", K, "Total", [])
        scr.keys("BSpace")
        scr.view("Steps")

        # Ops from "all", then the kernels beneath its top op
        scr.text("5")
        lines = scr.view("Ops")
        visit(name + ": Ops", lines, O, ops_all)
        if op_pos is not None:
            scr.text(":%d" % (op_pos + 1))
            scr.keys("Enter")
            scr.view("Ops", at=op_pos + 1)
            scr.keys("Enter")
            lines = scr.view("Kernels", ops_all[op_pos]["Op"])
            visit(name + ": Kernels beneath %s" % ops_all[op_pos]["Op"], lines, K, under)
            scr.keys("BSpace")
            scr.view("Ops")
        sort_next(name + ": Ops", "Ops", O, "GPU time", ["--by", "op"])
        scr.keys("BSpace")
        scr.view("Steps")

        # step N: its kernels, the launches of two of them, its ops
        scr.text(":%d" % step)
        scr.keys("Enter")
        scr.keys("Enter")
        lines = scr.view("Kernels", "step %d" % step)
        visit(name + ": Kernels of step %d" % step, lines, K, kstep)
        for scope, pos, k in drills:
            if scope != "step":
                continue
            scr.text(":%d" % pos)
            scr.keys("Enter")
            scr.view("Kernels", "step %d" % step, at=pos)
            scr.keys("Enter")
            lines = scr.view("Launches")
            visit(name + ": Launches of %s in step %d" % (kstep[pos - 1]["Name"], step), lines, L,
                  lrows[(scope, pos)], tolerant={"Occ%": pct_close})
            scr.keys("BSpace")
            scr.view("Kernels", "step %d" % step)
        scr.text("5")
        lines = scr.view("Ops")
        visit(name + ": Ops of step %d" % step, lines, O, ops_step)
        if idle is not None:
            scr.text("1")
            scr.view("Steps")
            scr.text(":%d" % idle)
            scr.keys("Enter")
            scr.keys("Enter")
            lines = scr.view("Kernels", "step %d" % idle)
            visit(name + ": Kernels of step %d" % idle, lines, K, kidle)
        scr.text("q")
    finally:
        scr.close()


def dims_text(d):
    return json.dumps(d) if d is not None else "-"


def innermost_dims(launch):
    """The Input Dims of the innermost CPU op above a launch (show's JSON)."""
    ops = [p for p in launch.get("parents") or [] if p.get("kind") == "cpu_op"]
    return dims_text(ops[-1].get("input_dims")) if ops else "-"


def same_dims(a, b):
    """Input Dims: the trace's own text on screen, JSON re-written here."""
    return a is not None and b is not None and a.replace(" ", "") == b.replace(" ", "")


def check_compare(args, views, name, base, new):
    """The compare view (tix --diff BASE NEW) against tix diff: kernels (the
    view it opens on), launches of the top kernel on both sides (against
    show on each side), ops (5), steps (1), shapes (p)."""
    note("== %s (%s vs %s)" % (name, os.path.basename(base), os.path.basename(new)))
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TZ="UTC", HOME=args.work,
               XDG_CACHE_HOME=os.path.join(args.work, "xdg-cache"), TERM="screen")
    cli = Cli(args.tix, env)
    tables = [("kernels", "cmp_kernels", "kernel", None), ("ops", "cmp_ops", "op", "5"),
              ("steps", "cmp_steps", "step", "1"), ("shapes", "cmp_shapes", "shape", "p")]
    want, per_step = {}, None
    for label, kind, by, _ in tables:
        cols = views[kind]
        out = cli.run("diff", base, new, "--by", by, "--top", "0")
        first = [c.title for c in cols if c.shown()][0]
        want[label] = split_text(text_table(out, first), cols, "%s diff --by %s" % (name, by))
        per_step = per_step or next(s for s in out.split("\n") if s.startswith("per step:"))
    # the launches of two kernels on both sides, from show on each side: the
    # first row, and the one whose launches name the longest op
    drows = cli.json("diff", base, new, "--top", "0")["rows"]
    every = cli.csv("show", base, "--kernel", ".", "--limit", "0")
    longest = {}
    for r in every:
        longest[r["name"]] = max(longest.get(r["name"], 0), len(r["launched_by"]))
    second = max(range(len(drows)), key=lambda i: (longest.get(drows[i]["name"], 0), -i))
    drills = [0] + ([second] if second != 0 else [])
    lwants = {}
    for pos in drills:
        top = drows[pos]
        lw = []
        for side, tr in (("base", base), ("new", new)):
            sel = ["--kernel", ere_escape(top["name"]), "--limit", "0"]
            lw.append((side, cli.csv("show", tr, *sel), cli.json("show", tr, *sel)["launches"]))
        lwant = []
        for side, rows, js in lw:
            g, b = top["grid_" + side], top["block_" + side]
            lwant.append({"Side": side, "#": "all", "Start": "",
                          "Duration": fmt_dur(sum(int(r["dur_ns"]) for r in rows if r["dur_ns"])),
                          "Grid": "[%d,%d,%d]" % tuple(g) if g else "-",
                          "Block": "[%d,%d,%d]" % tuple(b) if b else "-",
                          "Input Dims": innermost_dims(js[0]) if js else "-",
                          "Launched by": "%d launch%s" % (len(rows), "" if len(rows) == 1 else "es")})
        for side, rows, js in lw:
            for r, e in zip(launch_rows(rows, None), js):
                lwant.append({"Side": side, "#": r["#"], "Start": r["Start"],
                              "Duration": r["Duration"], "Grid": r["Grid"], "Block": r["Block"],
                              "Input Dims": innermost_dims(e), "Launched by": r["Launched by"]})
        lwants[pos] = lwant
    width = max([220] + [need_width(views[k], want[l]) for l, k, _, _ in tables] +
                [need_width(views["cmp_launches"], w) for w in lwants.values()])
    height = max(60, min(max(len(w) for w in list(want.values()) + list(lwants.values())) + 6,
                         args.max_height))
    scr = Screen(args.work, args.tix, env, width, height, ["--diff", base, new])
    try:
        visit = Visit(scr, width, height, hy=2)
        scr.wait(lambda ls: ls[0].startswith("tix "), "tix's first screen")
        scr.keys("C-l")
        for label, kind, by, key in tables:
            if key:
                scr.text(key)
            lines = scr.view("Compare", ": " + label)
            CHECKS[0] += 1
            totals = lines[1]
            if not per_step.startswith(totals.strip()):
                fail("%s: compare %s: the totals line %r is not diff's %r"
                     % (name, label, lines[1], per_step))
            visit("%s: Compare %s (diff --by %s)" % (name, label, by), lines, views[kind],
                  want[label], fit_widths(views[kind], want[label]))
            for pos in drills if label == "kernels" else []:
                scr.text(":%d" % (pos + 1))
                scr.keys("Enter")
                scr.view("Compare", ": kernels", at=pos + 1)
                scr.keys("Enter")
                lines = scr.view("Compare", want["kernels"][pos]["Name"][-8:])
                visit("%s: Compare launches of %s (show on each side)"
                      % (name, want["kernels"][pos]["Name"]), lines, views["cmp_launches"],
                      lwants[pos], fit_widths(views["cmp_launches"], lwants[pos]),
                      tolerant={"Input Dims": same_dims})
                scr.keys("BSpace")
                scr.view("Compare", ": kernels")
        scr.text("q")
    finally:
        scr.close()


def check_names_apart(args, name, path, extra):
    """At 80, 120 and 160 columns, no two rows of the Kernels view of all
    steps read the same name: a cut keeps where names differ (issue 20
    item 6; the labels are distinct in full, summary --top 0 says so)."""
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TZ="UTC", HOME=args.work,
               XDG_CACHE_HOME=os.path.join(args.work, "xdg-cache"), TERM="screen")
    for width in (80, 120, 160):
        scr = Screen(args.work, args.tix, env, width, 60, [path] + extra)
        try:
            scr.wait(lambda ls: any(x.lstrip().startswith("all ") for x in ls[2:4]), "the steps")
            scr.keys("Enter")
            lines = scr.view("Kernels")
            at = lines[1].find("Name")
            names = [ln[at:].strip() for ln in lines[2:-2] if ln.strip() and at >= 0]
            seen = {}
            for i, nm in enumerate(names):
                seen.setdefault(nm, []).append(i + 1)
            same = {nm: rows for nm, rows in seen.items() if len(rows) > 1}
            CHECKS[0] += 1
            if at < 0 or same:
                fail("%s: Kernels at %d columns: rows read the same name: %s"
                     % (name, width, "; ".join("%r on rows %s" % (k, v) for k, v in list(same.items())[:3])))
            scr.text("q")
        finally:
            scr.close()


def check_ranks(args, views, name, traces):
    """The Ranks view (tix RANK0 RANK1 ...) against summary --by rank: the
    same rows, columns and figures (both print the ranks view of index/view).
    The straggler's column has no title: its "*" is read from where the CLI
    writes it, two blanks after the Rank column."""
    note("== %s (%d ranks)" % (name, len(traces)))
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TZ="UTC", HOME=args.work,
               XDG_CACHE_HOME=os.path.join(args.work, "xdg-cache"), TERM="screen")
    cli = Cli(args.tix, env)
    cols = views["ranks"]
    star = next(c for c in cols if c.shown() and c.title == "")
    named = [c for c in cols if c is not star]
    lines = text_table(cli.run("summary", *traces, "--by", "rank"), "Step")
    lines = [s for s in lines if s.strip() and not s.startswith("straggler:")]
    at = lines[0].index("Rank") + len("Rank") + 2
    marks = []
    for i, s in enumerate(lines):
        marks.append(len(s) > at and s[at] == "*")
        if marks[-1]:
            lines[i] = s[:at] + " " + s[at + 1:]
    want = split_text(lines, named, name + " summary --by rank")
    for r, m in zip(want, marks[1:]):
        r[""] = "*" if m else ""
    width = max(220, need_width(cols, want))
    height = max(60, min(len(want) + 6, args.max_height))
    scr = Screen(args.work, args.tix, env, width, height, traces)
    try:
        visit = Visit(scr, width, height, hy=2)
        scr.wait(lambda ls: ls[0].startswith("tix "), "tix's first screen")
        scr.keys("C-l")
        lines = scr.view("Ranks")
        visit("%s: Ranks (summary --by rank)" % name, lines, cols, want)
        scr.text("q")
    finally:
        scr.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tix", required=True)
    p.add_argument("--cols", required=True, help="tests/tui/view_cols.c, built (tui_view_cols)")
    p.add_argument("--gen", required=True, help="tests/gen/gen_trace.py")
    p.add_argument("--work", required=True, help="scratch folder (created, reused)")
    p.add_argument("--traces", help="the shared corpus (real traces), skipped when absent")
    p.add_argument("--max-height", type=int, default=300,
                   help="terminal lines at most; longer views are compared first and last page")
    args = p.parse_args()
    if not shutil.which("tmux"):
        print("SKIP: tmux is not installed")
        return 77
    args.tix = os.path.abspath(args.tix)
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    views = read_columns(os.path.abspath(args.cols))
    self_check(views["kernels"])

    def gen(out, *opts, made=None):
        """Runs the generator once for these options (made: the file it
        writes when that is not out itself)."""
        path = os.path.join(args.work, out)
        stamp = path + ".opts"
        key = " ".join(opts)
        check = os.path.join(args.work, made) if made else path
        if not (os.path.exists(check) and os.path.exists(stamp) and open(stamp).read() == key):
            subprocess.run([sys.executable, args.gen, "-o", path, "-q"] + list(opts), check=True)
            with open(stamp, "w") as f:
                f.write(key)
        return path

    t0 = time.time()
    traces = [
        ("glm", gen("glm.json.gz", "--steps", "4"), [], 1),
        ("sgl", gen("sgl.json.gz", "--marker", "sglang", "--steps", "6", "--layers", "6"), [], 2),
        # copies before the trace, CUDA graph replays and the ops of their capture
        ("pre", gen("pre.json.gz", "--steps", "3", "--layers", "4", "--pre-window", "6", "--graph",
                    "--capture-out", os.path.join(args.work, "pre-capture.json.gz"), "--seed", "3"),
         ["--graph-capture", os.path.join(args.work, "pre-capture.json.gz")], 1),
    ]
    if args.traces and os.path.isdir(args.traces):
        os.makedirs(os.path.join(args.work, "staged"), exist_ok=True)
        for fn in REAL:
            src = os.path.join(args.traces, fn)
            if not os.path.exists(src):
                note("skip  %s: not in %s" % (fn, args.traces))
                continue
            dst = os.path.join(args.work, "staged", fn)  # the index goes beside the copy
            if not (os.path.exists(dst) and os.path.getsize(dst) == os.path.getsize(src)):
                shutil.copyfile(src, dst)
            traces.append((fn.split(".")[0], dst, [], 1))
    else:
        note("skip  the real traces: no folder %s" % (args.traces or "(--traces not given)"))
    for name, path, extra, step in traces:
        try:
            check_trace(args, views, name, path, extra, step)
            check_names_apart(args, name, path, extra)
        except (RuntimeError, subprocess.SubprocessError, OSError, KeyError, ValueError) as e:
            fail("%s: %s" % (name, e))
    # the compare view: the decode story before and after the fix; the
    # trace with work before it and graph replays, before and after
    pairs = [("glm-vs-fixed", traces[0][1], gen("fixed.json.gz", "--steps", "4", "--fixed")),
             ("pre-vs-fixed", gen("pre-nocap.json.gz", "--steps", "3", "--layers", "4",
                                  "--pre-window", "6", "--graph", "--seed", "3"),
              gen("pre-fixed.json.gz", "--steps", "3", "--layers", "4", "--pre-window", "6",
                  "--graph", "--seed", "3", "--fixed"))]
    if "ranks" in views:
        tp = os.path.join(args.work, "tp4")
        os.makedirs(tp, exist_ok=True)
        gen(os.path.join("tp4", "tp4.json"), "--ranks", "4", "--slow-rank", "2", "--steps", "3",
            "--layers", "4", made=os.path.join("tp4", "tp4-rank3.json"))
        try:
            check_ranks(args, views, "tp4", [os.path.join(tp, "tp4-rank%d.json" % k)
                                             for k in range(4)])
        except (RuntimeError, subprocess.SubprocessError, OSError, KeyError, ValueError,
                StopIteration) as e:
            fail("tp4: %s" % e)
    else:
        note("skip  the ranks view: the model has none")
    if "cmp_kernels" not in views:
        note("skip  the compare view: the model has none")
        pairs = []
    for name, base, new in pairs:
        try:
            check_compare(args, views, name, base, new)
        except (RuntimeError, subprocess.SubprocessError, OSError, KeyError, ValueError,
                StopIteration) as e:
            fail("%s: %s" % (name, e))
    for key, why in KNOWN.items():
        seen = KNOWN_SEEN.get(key)
        if seen:
            note("known %s, column %r: %s; %d cells, e.g. %s: screen %r, CLI %r"
                 % (key[0], key[1], why, seen[0], seen[1], seen[2], seen[3]))
        elif pairs:
            fail("known difference %s, column %r no longer seen: remove it from KNOWN in "
                 "tests/tui/faces.py" % key)
    note("tui_faces: %d screens compared, %d differences (%.1f s)"
         % (CHECKS[0] - 1, len(FAILS), time.time() - t0))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

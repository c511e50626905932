#!/usr/bin/env bash
# Keystroke latency of the TUI's compare and ranks views on large traces
# (issue 11): a before/after pair of ~485 MB traces (`tix --diff BEFORE AFTER`)
# and a TP8 set of 8 x ~485 MB (`tix DIR`, which opens on the Ranks view);
# MULTI_RANKS=64 (or 256) makes it a set of that many ranks (issue 23).
# Every key's time, from the key to the redrawn screen, as the TUI itself logs
# it (TIX_TUI_TIMING); the target (DESIGN.md) is 50 ms for every key.
#
#   bench/multi_latency.sh                     # generates the traces once
#   TIX=... BENCH_DIR=... bench/multi_latency.sh
#   MULTI_TP_STEPS=7 bench/multi_latency.sh    # a smaller TP8 set (~130 MB a rank)
#   MULTI_RANKS=64 MULTI_TP_STEPS=2 MULTI_SKIP_CMP=1 bench/multi_latency.sh
#                                              # 64 ranks of ~37 MB (2.4 GB)
#
# What it does:
#  1. generates, once (kept in BENCH_DIR/multi): cmp-before.json and
#     cmp-after.json (tests/gen/gen_trace.py --target-mb MULTI_MB
#     --python-frames --stack-depth 12, the second with --fixed: the story's
#     density, as bench/run.sh makes its trace), and tp8-sS/tp8-rank0..7.json
#     (--ranks 8 --slow-rank 3 --steps S, the same frames; tpN-sS/tpN-rank*.json
#     with MULTI_RANKS=N).  --target-mb does
#     not combine with --ranks: 26 steps of 78 layers are 479 MB a rank
#     (18.4 MB a step; the single trace's --target-mb 485 picks 26 too);
#  2. indexes them, timed: `tix index` of each (the index beside the trace,
#     where `tix TRACE` and `tix DIR` find it), then, the TP8 indexes deleted,
#     `tix summary DIR/*.json --by rank --jobs 2`, which builds them two at a
#     time (MULTI_REINDEX=0 skips both when the indexes exist); the report
#     puts that build against the sum of the one-rank indexes divided by the
#     CPUs (target <= 1.1x: the --jobs scheduling loses nothing);
#  3. times how long the TUI takes to show the compare view of the pair and
#     the Ranks view of the TP8 set, indexes built (from the launch inside the
#     tmux pane to the screen showing the view's header line; best and median
#     of MULTI_OPEN_RUNS, default 5; the pane is polled every 10 ms);
#  4. drives the TUI in tmux (160x50), MULTI_ROUNDS rounds (default 3) of
#     each session: `tix --diff BEFORE AFTER`: Down/Up, PgDn/PgUp, s, the S
#     menu, I, Tab, 2 5 1 p (what is compared), Enter on a step and back, /
#     search, c, Enter into a kernel's launches on both sides (the changed
#     cast, and the kernel with the most launches), there Down, PgDn, s, /,
#     Enter into a launch's detail, Backspace; and `tix DIR`: Down, Up, PgDn,
#     s, S menu, I, c, /, Enter into a rank's step, Backspace, R in the Ranks
#     view and R from a rank's Kernels view (a new rank set over the 8
#     indexes).  Each key is sent once the TUI has logged the one before it.
#  5. prints per key (view and key) the count, median and max ms against
#     50 ms, and writes BENCH_DIR/multi/latency.tsv (every key) and
#     BENCH_DIR/multi/results.json.
#
# Environment: TIX (default REPO/build/cli/tix), BENCH_DIR (default
# /tmp/tix-bench), MULTI_MB (485), MULTI_TP_STEPS (26), MULTI_ROUNDS (3),
# MULTI_OPEN_RUNS (5), MULTI_REINDEX (1), MULTI_RANKS (8), MULTI_TP_EXTRA (more
# generator arguments for the rank set, e.g. "--layers 40"), MULTI_SKIP_CMP=1 /
# MULTI_SKIP_TP8=1 (no rank set).
# Needs tmux and python3.  Exits non-zero only on errors; missed targets are
# reported, not failed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIX=${TIX:-$REPO/build/cli/tix}
BENCH_DIR=${BENCH_DIR:-/tmp/tix-bench}
MB=${MULTI_MB:-485}
TP_STEPS=${MULTI_TP_STEPS:-26}
ROUNDS=${MULTI_ROUNDS:-3}
OPEN_RUNS=${MULTI_OPEN_RUNS:-5}
W=$BENCH_DIR/multi
BEFORE=$W/cmp-before.json
AFTER=$W/cmp-after.json
RANKS=${MULTI_RANKS:-8}
TPDIR=$W/tp$RANKS-s$TP_STEPS
GEN_ARGS=(--python-frames --stack-depth 12)

die() { echo "multi_latency: $*" >&2; exit 2; }
log() { echo "multi_latency: $*" >&2; }
command -v tmux >/dev/null || die "tmux is needed"
command -v python3 >/dev/null || die "python3 is needed"
[ -x "$TIX" ] || die "no tix at $TIX (build it, or set TIX=...)"
mkdir -p "$W"
now_ns() { date +%s%N; }
secs() { python3 -c "print(f'{($2 - $1) / 1e9:.3f}')"; }
# child_cpu VAR: VAR = the CPU times (user, sys) of every child this shell has
# waited for so far, grandchildren reaped by them included, as bash's times
# prints them (run in this shell, not a subshell); cpu_between A B: the CPU
# seconds between two of them (a python3 run after B, so not counted in it)
child_cpu() {
	times >"$W/times.txt"
	printf -v "$1" '%s' "$(tail -n 1 "$W/times.txt")"
}
cpu_between() {
	python3 -c "import re,sys
t = lambda x: sum(float(m) * 60 + float(s) for m, s in re.findall(r'([0-9]+)m([0-9.]+)s', x))
print(f'{t(sys.argv[2]) - t(sys.argv[1]):.3f}')" "$1" "$2"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg) # other work on the machine shows in every time

# -- 1. traces -----------------------------------------------------------------
gen_one() { # OUT ARGS...
	local out=$1
	shift
	[ -s "$out" ] && return
	log "generating $out"
	python3 "$REPO/tests/gen/gen_trace.py" -q "${GEN_ARGS[@]}" "$@" -o "$out.part" || die "generator failed"
	mv "$out.part" "$out"
}
if [ "${MULTI_SKIP_CMP:-0}" != 1 ]; then
	gen_one "$BEFORE" --target-mb "$MB"
	gen_one "$AFTER" --target-mb "$MB" --fixed
fi
if [ "${MULTI_SKIP_TP8:-0}" != 1 ] && [ ! -s "$TPDIR/tp$RANKS-rank$((RANKS - 1)).json" ]; then
	log "generating $TPDIR ($RANKS ranks x $TP_STEPS steps)"
	rm -rf "$TPDIR.part"
	mkdir -p "$TPDIR.part"
	# shellcheck disable=SC2086 # MULTI_TP_EXTRA: more generator arguments, e.g. "--layers 40"
	python3 "$REPO/tests/gen/gen_trace.py" -q "${GEN_ARGS[@]}" --ranks "$RANKS" --slow-rank 3 \
		--steps "$TP_STEPS" ${MULTI_TP_EXTRA:-} -o "$TPDIR.part/tp$RANKS.json" || die "generator failed"
	rm -rf "$TPDIR"
	mv "$TPDIR.part" "$TPDIR"
fi
TP_FILES=()
if [ "${MULTI_SKIP_TP8:-0}" != 1 ]; then
	for ((r = 0; r < RANKS; r++)); do TP_FILES+=("$TPDIR/tp$RANKS-rank$r.json"); done
fi

# -- 2. indexes ------------------------------------------------------------------
IDX_ROWS=$W/index.tsv # what \t seconds \t bytes of JSON \t CPU seconds
: >"$IDX_ROWS"
index_one() { # TRACE: tix index beside it, timed
	cat "$1" >/dev/null # page cache warm
	local t0 t1 c0 c1
	child_cpu c0
	t0=$(now_ns)
	"$TIX" index "$1" >/dev/null 2>"$W/index.err" || { cat "$W/index.err" >&2; die "tix index $1 failed"; }
	t1=$(now_ns)
	child_cpu c1
	printf 'tix index %s\t%s\t%s\t%s\n' "$(basename "$1")" "$(secs "$t0" "$t1")" "$(stat -c %s "$1")" \
		"$(cpu_between "$c0" "$c1")" >>"$IDX_ROWS"
}
ALL=()
[ "${MULTI_SKIP_CMP:-0}" = 1 ] || ALL+=("$BEFORE" "$AFTER")
ALL+=("${TP_FILES[@]}")
for f in "${ALL[@]}"; do
	if [ "${MULTI_REINDEX:-1}" = 1 ] || [ ! -s "$f.tix" ]; then
		log "tix index $(basename "$f")"
		index_one "$f"
	fi
done
if [ ${#TP_FILES[@]} -gt 0 ] && [ "${MULTI_REINDEX:-1}" = 1 ]; then
	log "tix summary --by rank --jobs 2 of the $RANKS ranks, their indexes deleted first"
	cat "${TP_FILES[@]}" >/dev/null
	rm -f "$TPDIR"/*.tix
	child_cpu c0
	t0=$(now_ns)
	"$TIX" summary "${TP_FILES[@]}" --by rank --jobs 2 >"$W/ranks-summary.txt" 2>"$W/index.err" ||
		{ cat "$W/index.err" >&2; die "tix summary --by rank failed"; }
	t1=$(now_ns)
	child_cpu c1
	bytes=$(cat "${TP_FILES[@]}" | wc -c)
	printf 'tix summary --by rank --jobs 2 (builds %s)\t%s\t%s\t%s\n' "$RANKS" "$(secs "$t0" "$t1")" "$bytes" \
		"$(cpu_between "$c0" "$c1")" >>"$IDX_ROWS"
	t0=$(now_ns)
	"$TIX" summary "${TP_FILES[@]}" --by rank >/dev/null 2>&1 || die "tix summary --by rank (indexes built) failed"
	t1=$(now_ns)
	printf 'tix summary --by rank (%s indexes built)\t%s\t%s\n' "$RANKS" "$(secs "$t0" "$t1")" "$bytes" >>"$IDX_ROWS"
fi
for f in "${ALL[@]}"; do
	[ -s "$f.tix" ] || die "no index beside $f"
	cat "$f.tix" >/dev/null
done

# -- tmux: the TUI in a pane of our own server -----------------------------------
SOCK=mbench-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
LOG=$W/tui-timing.log
RES=$W/latency.tsv  # view \t key \t request \t ms
OPEN=$W/open.tsv    # what \t ms
: >"$RES"
: >"$OPEN"

# start CMD...: a fresh session running CMD (timing log emptied); records in
# $W/start.ns when the command started inside the pane.
start() {
	: >"$LOG"
	rm -f "$W/start.ns"
	tm kill-session -t b 2>/dev/null || true
	tm new-session -d -s b -x 160 -y 50 \
		"date +%s%N >$W/start.ns; exec env LANG=C.UTF-8 TERM=xterm-256color TIX_TUI_TIMING=$LOG $*"
	# the server outlives the session (tix's quit ends it): a new-session
	# racing a server on its way out fails with "server exited unexpectedly"
	tm set -g exit-empty off
}
screen() { tm capture-pane -p -t b 2>/dev/null; }
# wait_for TEXT: until the screen shows TEXT (polled every 10 ms: each poll
# is a tmux client and a grep, taken from the 2 cores the TUI runs on)
wait_for() {
	local i
	for ((i = 0; i < 2000; i++)); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.01
	done
	echo "multi_latency: screen never showed '$1'" >&2
	screen >&2 || true
	exit 2
}
quit() {
	tm send-keys -t b q
	local i
	for ((i = 0; i < 400; i++)); do
		tm has-session -t b 2>/dev/null || return 0
		sleep 0.01
	done
	tm kill-session -t b 2>/dev/null || true
}
# open_time WHAT TEXT CMD...: OPEN_RUNS launches, each until TEXT shows
open_time() {
	local what=$1 text=$2 i t1
	shift 2
	for ((i = 0; i < OPEN_RUNS; i++)); do
		start "$@"
		wait_for "$text"
		t1=$(now_ns)
		for ((j = 0; j < 200; j++)); do [ -s "$W/start.ns" ] && break; sleep 0.01; done
		printf '%s\t%s\n' "$what" "$(python3 -c "print(($t1 - $(cat "$W/start.ns")) / 1e6)")" >>"$OPEN"
		quit
	done
}
lines() { wc -l <"$LOG"; }
VIEW=""
# k LABEL KEYS...: sends KEYS (tmux key names), waits until the TUI has logged
# one more line (the key handled and the screen redrawn), records it.  The
# log is looked at after 2, 4, 8, ... ms, then every 50 ms: a poll every few
# ms (a fork each) would take CPU from the TUI while it answers (R's 25-29 ms
# read 46-50 ms with polls every 5 ms, under a load of 2).
k() {
	local label=$1 n0 i w=0.002
	shift
	n0=$(lines)
	tm send-keys -t b "$@"
	for ((i = 0; i < 700; i++)); do
		sleep "$w"
		[ "$(lines)" -gt "$n0" ] && break
		case $w in 0.002) w=0.004 ;; 0.004) w=0.008 ;; 0.008) w=0.016 ;; 0.016) w=0.032 ;; *) w=0.05 ;; esac
	done
	[ "$(lines)" -gt "$n0" ] || { screen >&2; die "no timing line after '$label' in $VIEW"; }
	tail -n 1 "$LOG" | awk -v v="$VIEW" -v l="$label" '{ printf "%s\t%s\t%s\t%s\n", v, l, $1, $2 }' >>"$RES"
}
# kp LABEL KEY TEXT: a prompt (/ f :): KEY, the text typed, Enter; one line
kp() {
	tm send-keys -t b "$2"
	sleep 0.05
	tm send-keys -t b -l "$3"
	sleep 0.05
	k "$1" Enter
}
repeat() { # N LABEL KEYS...
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do k "$@"; done
}

# -- 3 and 4: the compare view ---------------------------------------------------
if [ "${MULTI_SKIP_CMP:-0}" != 1 ]; then
	CMP=("$TIX" --diff "$BEFORE" "$AFTER")
	log "compare: open time (best of $OPEN_RUNS)"
	open_time "tix --diff BEFORE AFTER: compare view" "per step: wall" "${CMP[@]}"
	log "compare: $ROUNDS rounds of keys"
	start "${CMP[@]}"
	wait_for "per step: wall"
	for ((r = 0; r < ROUNDS; r++)); do
		VIEW="compare kernels"
		repeat 5 "Down" Down
		repeat 3 "Up" Up
		repeat 3 "PgDn" NPage
		k "PgUp" PPage
		repeat 4 "s (sort)" s
		k "I (invert)" I
		k "S (menu)" S
		k "S menu: Down" Down
		k "S menu: Enter (sort)" Enter
		k "c" c
		kp "/ search" / "device_kernel"
		k "n (next match)" n
		k "g (first row)" g
		k "Tab (to ops)" Tab
		VIEW="compare ops"
		k "s (sort)" s
		k "Tab (to shapes)" Tab
		VIEW="compare shapes"
		repeat 2 "PgDn" NPage
		k "s (sort)" s
		k "Tab (to steps)" Tab
		VIEW="compare steps"
		repeat 3 "Down" Down
		k "Enter (a step's kernels)" Enter
		VIEW="compare kernels, one step"
		k "Down" Down
		k "Backspace" BSpace
		VIEW="compare steps"
		k "Tab (to kernels)" Tab
		VIEW="compare kernels"
		k "5 (ops)" 5
		k "p (shapes)" p
		k "1 (steps)" 1
		k "2 (kernels)" 2
		k "Enter (the cast's launches)" Enter
		VIEW="compare launches (cast)"
		repeat 3 "Down" Down
		repeat 3 "PgDn" NPage
		repeat 4 "s (sort)" s
		kp "/ search" / "aten::copy_"
		k "Enter (a launch's detail)" Enter
		VIEW="detail from compare"
		k "Backspace" BSpace
		VIEW="compare launches (cast)"
		k "Backspace" BSpace
		VIEW="compare kernels"
		kp "/ search" / "cvt_fp16_to_fp4<"
		k "Enter (most launches)" Enter
		VIEW="compare launches (most)"
		repeat 3 "Down" Down
		repeat 3 "PgDn" NPage
		k "G (last row)" G
		k "Enter (new side's detail)" Enter
		VIEW="detail from compare"
		k "Backspace" BSpace
		VIEW="compare launches (most)"
		k "g (first row)" g
		repeat 4 "s (sort)" s
		kp "/ search" / "aten::"
		k "Backspace" BSpace
		VIEW="compare kernels"
		k "g (first row)" g
		# the view as it opened: Time sort off again
		k "S (menu)" S
		k "S menu: Home" Home
		k "S menu: Enter (sort)" Enter
	done
	quit
fi

# -- 3 and 4: the ranks view -----------------------------------------------------
if [ ${#TP_FILES[@]} -gt 0 ]; then
	log "ranks: open time (best of $OPEN_RUNS)"
	open_time "tix DIR (TP$RANKS): ranks view" "straggler:" "$TIX" "$TPDIR"
	log "ranks: $ROUNDS rounds of keys"
	start "$TIX" "$TPDIR"
	wait_for "straggler:"
	for ((r = 0; r < ROUNDS; r++)); do
		VIEW="ranks"
		repeat 5 "Down" Down
		repeat 2 "Up" Up
		repeat 3 "PgDn" NPage
		k "PgUp" PPage
		repeat 4 "s (sort)" s
		k "I (invert)" I
		k "S (menu)" S
		k "S menu: Down" Down
		k "S menu: Enter (sort)" Enter
		k "c (longest wait)" c
		kp "/ search" / "rank3"
		k "n (next match)" n
		k "Enter (a rank's step)" Enter
		VIEW="kernels of a rank's step"
		repeat 2 "Down" Down
		k "s (sort)" s
		k "R (ranks from here)" R
		VIEW="ranks (second)"
		k "Down" Down
		k "Backspace" BSpace
		VIEW="kernels of a rank's step"
		k "Backspace" BSpace
		VIEW="ranks"
		k "R" R
		k "g (first row)" g
		k "S (menu)" S
		k "S menu: Home" Home
		k "S menu: Enter (sort)" Enter
	done
	quit
fi

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# -- 5. report --------------------------------------------------------------------------
INFO=$W/info.txt
: >"$INFO"
for f in "${ALL[@]}"; do
	"$TIX" info "$f.tix" >"$W/info.one" 2>&1 || die "tix info $f.tix failed"
	printf '%s\t%s MB JSON, %s events, %s steps, .tix %s MB\n' "$(basename "$f")" \
		"$(( $(stat -c %s "$f") / 1000000 ))" "$(sed -n 's/^events: *\([0-9]*\).*/\1/p' "$W/info.one")" \
		"$(sed -n 's/^steps: *\([0-9]*\).*/\1/p' "$W/info.one")" "$(( $(stat -c %s "$f.tix") / 1000000 ))" >>"$INFO"
done
python3 - "$RES" "$OPEN" "$IDX_ROWS" "$INFO" "$W/results.json" "$TIX" "$LOAD_START" "$LOAD_END" <<'PY'
import collections, json, os, statistics, sys
res, opn, idx, info, out, tix, load0, load1 = sys.argv[1:]
print(f"\ntix compare and ranks views: {tix}")
print(f"load average {load0} at the start, {load1} at the end (2 cores)\n")
for line in open(info):
    name, ev = line.rstrip("\n").split("\t")
    print(f"  {name:<26} {ev}")
rows = [(l.rstrip("\n").split("\t") + [""])[:4] for l in open(idx) if l.strip()]
ranks = [(float(s), float(c)) for what, s, b, c in rows if what.startswith("tix index tp")]
jobs = [(float(s), float(c)) for what, s, b, c in rows if what.startswith("tix summary --by rank --jobs 2")]
if rows:
    print()
    for what, s, b, c in rows:
        if what.startswith("tix index tp") and len(ranks) > 8:
            continue  # summed below
        print(f"  {what:<44} {float(s):7.3f} s  {int(b)/1e6:7.1f} MB of JSON")
scaling = None
if ranks and jobs:
    cpus = min(os.cpu_count() or 1, 2, len(ranks))  # --jobs 2
    one = sum(t for t, _ in ranks)
    one_cpu = sum(c for _, c in ranks)
    scaling = jobs[0][0] / (one / cpus)
    print(f"  {len(ranks)} one-rank indexes, one after another: {one:.3f} s in all "
          f"({one/len(ranks):.3f} s a rank), {one_cpu:.3f} CPU-s")
    print(f"  --jobs 2 build / (that sum / {cpus} CPUs): {scaling:.2f}x (target <= 1.1): "
          + ("met" if scaling <= 1.1 else "MISSED"))
    print(f"  --jobs 2 build: {jobs[0][1]:.3f} CPU-s, {jobs[0][1]/one_cpu:.2f}x the one-rank sum's; "
          f"{jobs[0][1]/jobs[0][0]:.2f} CPUs busy on average (the rest went to other work on the machine)")
by = collections.defaultdict(list)
for l in open(opn):
    what, ms = l.rstrip("\n").split("\t")
    by[what].append(float(ms))
if by:
    print()
    for what, vs in by.items():
        print(f"  open: {what:<38} best {min(vs):7.1f} ms  median {statistics.median(vs):7.1f} ms  ({len(vs)} runs)")
keys = collections.OrderedDict()
for l in open(res):
    view, key, req, ms = l.rstrip("\n").split("\t")
    keys.setdefault((view, key), []).append(float(ms))
print(f"\n  {'view':<26} {'key':<30} {'n':>3} {'median':>9} {'max':>9}  target 50 ms")
worst = 0.0
table = []
for (view, key), vs in keys.items():
    med, mx = statistics.median(vs), max(vs)
    worst = max(worst, mx)
    ok = mx < 50
    table.append({"view": view, "key": key, "n": len(vs), "median_ms": med, "max_ms": mx, "met": ok})
    print(f"  {view:<26} {key:<30} {len(vs):>3} {med:6.2f} ms {mx:6.2f} ms  {'met' if ok else 'MISSED'}")
n = sum(len(v) for v in keys.values())
missed = [t for t in table if not t["met"]]
print(f"\n  all {n} keys: max {worst:.2f} ms (target < 50 ms): "
      + ("met" if not missed else f"MISSED by {len(missed)} of {len(table)} kinds"))
json.dump({"keys": table, "open_ms": by, "jobs_scaling": scaling, "index": [{"what": w, "seconds": float(s), "json_bytes": int(b)}
           for w, s, b, _ in rows]}, open(out, "w"), indent=1)
print(f"\n  (every key in {res}; results in {out})")
PY

#!/usr/bin/env bash
# The tix benchmark: one run, one file, the ratios that DESIGN.md's targets
# are stated in.  See docs/PERFORMANCE.md for the results and how to read them.
#
#   bench/run.sh                      # everything
#   bench/run.sh memory               # only the memory rows (MEMORY_EVENTS)
#   TIX=/path/to/tix bench/run.sh     # another tix binary (default build/cli/tix)
#
# Environment:
#   TIX           tix binary                      (default: REPO/build/cli/tix)
#   BENCH_DIR     scratch folder, reused          (default: /tmp/tix-bench)
#   BENCH_MB      size of the main trace, MB      (default: 485)
#   BENCH_STORY   1 (default): events as dense as the story's trace (python
#                 frames above every op, ~340 B an event); 0: the generator's default
#   SKIP_PYTHON=1 skip python3 json.load (slow: 15-40 s)
#   SKIP_2X=1     skip the 2x-size trace
#   MEMORY_EVENTS counts of tiny kernel events for the memory rows
#                 (default "10000000 40000000"; "" skips them): peak anonymous
#                 memory must stay under 64 MB whatever the count (bench/gen_tiny.py
#                 writes them, ~72 bytes an event: 0.75 and 3 GB of JSON)
#   REAL_TRACE    real Kineto trace timed for reference
#                 (default: REPO/../shared/traces/v100_8gpu_train.pt.trace.json.gz)
#   SKIP_GZ=1     skip the .json.gz rows (zcat, igzip, tix index of the same
#                 trace gzipped with gzip -6, made once)
#   BENCH_REOPEN_MB  sizes (MB) of the traces whose index reopen is timed
#                 besides the main one (default "150 2000 5000"; "" for none).
#                 Each is generated and indexed once; the index is kept in
#                 BENCH_DIR, the JSON deleted (disk) unless BENCH_KEEP=1
#   BENCH_TUI=1   also runs bench/tui_latency.sh on the largest of those
#                 indexes (needs tmux)
#
# Exits non-zero only on errors (a missing binary, a failing command); targets
# that are missed are reported in the table, not as a failure.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIX=${TIX:-$REPO/build/cli/tix}
BENCH_DIR=${BENCH_DIR:-/tmp/tix-bench}
BENCH_MB=${BENCH_MB:-485}
REAL_TRACE=${REAL_TRACE:-$REPO/../shared/traces/v100_8gpu_train.pt.trace.json.gz}
INDEX_RUNS=3
REOPEN_RUNS=5

die() { echo "bench: $*" >&2; exit 2; }
log() { echo "bench: $*" >&2; }

[ -x "$TIX" ] || die "no tix binary at $TIX (build it, or set TIX=...)"
command -v python3 >/dev/null || die "python3 is needed (generator, json.load)"
mkdir -p "$BENCH_DIR"

# -- helpers: the bare walk and the memory sampler, built as the shim is ------
# (bench/helpers.sh; bench/floor.sh times the walk as a fresh process, the
# floor issue 23 states its targets against)
HELPERS=$BENCH_DIR/build
log "building bench helpers in $HELPERS"
# shellcheck source=bench/helpers.sh
. "$REPO/bench/helpers.sh"
build_helpers "$REPO" "$TIX" "$HELPERS" || die "building the helpers failed"

# -- traces ------------------------------------------------------------------
gen() { # MB OUT
	if [ -s "$2" ]; then
		log "reusing $2"
		return
	fi
	log "generating $2 (~$1 MB)"
	# shellcheck disable=SC2086
	python3 "$REPO/tests/gen/gen_trace.py" --target-mb "$1" $GEN_ARGS -o "$2.part" -q ||
		die "generator failed"
	mv "$2.part" "$2"
}
# The story's trace: 485 MB, 1.42M events, ~340 bytes an event (python frames
# from with_stack=True above every op).  The generator's default, without
# frames, writes ~520 bytes an event (its long CUTLASS names): fewer, larger
# events, on which json.load is much faster (BENCH_STORY=0 to bench that).
if [ "${BENCH_STORY:-1}" = 1 ]; then
	GEN_ARGS="--python-frames --stack-depth 12"
	TRACE=$BENCH_DIR/story.json
	TRACE2=$BENCH_DIR/story2x.json
else
	GEN_ARGS=""
	TRACE=$BENCH_DIR/bench.json
	TRACE2=$BENCH_DIR/bench2x.json
fi
ONLY=${1:-all}
if [ "$ONLY" != memory ]; then
gen "$BENCH_MB" "$TRACE"
[ "${SKIP_2X:-0}" = 1 ] || gen $((BENCH_MB * 2)) "$TRACE2"
fi

warm() { cat "$@" >/dev/null; } # page cache warm, as the targets say

now_ns() { date +%s%N; }

# best_of N CMD...: prints the best wall time in seconds; fails if CMD fails.
best_of() {
	local n=$1 best="" t0 t1 dt i
	shift
	for ((i = 0; i < n; i++)); do
		t0=$(now_ns)
		"$@" >"$BENCH_DIR/last.out" 2>&1 || { cat "$BENCH_DIR/last.out" >&2; die "failed: $*"; }
		t1=$(now_ns)
		dt=$((t1 - t0))
		if [ -z "$best" ] || [ "$dt" -lt "$best" ]; then best=$dt; fi
	done
	python3 -c "print(f'{$best/1e9:.4f}')"
}

# peak_anon CMD...: runs CMD once under the sampler; prints its JSON line.
peak_anon() {
	"$PEAK" -i 1000 -- "$@" >"$BENCH_DIR/last.out" 2>"$BENCH_DIR/peak.err" ||
		{ cat "$BENCH_DIR/last.out" "$BENCH_DIR/peak.err" >&2; die "failed: $*"; }
	tail -n 1 "$BENCH_DIR/peak.err"
}

jget() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

# -- measurements --------------------------------------------------------------
if [ "$ONLY" != memory ]; then
TIXOUT=$BENCH_DIR/bench.tix
warm "$TRACE"

log "tix index (best of $INDEX_RUNS)"
"$TIX" index "$TRACE" -o "$TIXOUT" >/dev/null 2>&1 || die "tix index failed"   # warm-up
T_INDEX=$(best_of $INDEX_RUNS "$TIX" index "$TRACE" -o "$TIXOUT")
INDEX_MSG=$(cat "$BENCH_DIR/last.out")
P1=$(peak_anon "$TIX" index "$TRACE" -o "$TIXOUT")
ANON1=$(jget "$P1" peak_anon_kb)
HWM1=$(jget "$P1" maxrss_kb)

log "bare simdjson On-Demand walk (best of 3 warm passes)"
W=$("$WALK" "$TRACE" 3) || die "walk failed"
T_WALK=$(jget "$W" seconds)
WALK_EVENTS=$(jget "$W" events)
WALK_IMPL=$(jget "$W" implementation)
WALK_CXX=$(jget "$W" compiler)

log "the floor: two-thread walk that also takes every args value's text"
WF=$("$WALK" "$TRACE" 3 --threads 2 --args) || die "walk --args failed"
T_FLOOR=$(jget "$WF" seconds)

JSON_BYTES=$(stat -c %s "$TRACE")
TIX_BYTES=$(stat -c %s "$TIXOUT")

log "tix summary X.tix --top 1 (best of $REOPEN_RUNS)"
T_REOPEN=$(best_of $REOPEN_RUNS "$TIX" summary "$TIXOUT" --top 1)

T2=""; ANON2=""; JSON2_BYTES=""; INDEX2_MSG=""
if [ "${SKIP_2X:-0}" != 1 ]; then
	log "tix index of the 2x trace"
	warm "$TRACE2"
	T2=$(best_of 2 "$TIX" index "$TRACE2" -o "$BENCH_DIR/bench2x.tix")
	INDEX2_MSG=$(cat "$BENCH_DIR/last.out")
	P2=$(peak_anon "$TIX" index "$TRACE2" -o "$BENCH_DIR/bench2x.tix")
	ANON2=$(jget "$P2" peak_anon_kb)
	JSON2_BYTES=$(stat -c %s "$TRACE2")
	rm -f "$BENCH_DIR/bench2x.tix"
	warm "$TRACE"
fi

# -- the same trace gzipped ----------------------------------------------------
T_GZ=""; T_ZCAT=""; T_IGZIP=""; GZ_BYTES=""; ANON_GZ=""
if [ "${SKIP_GZ:-0}" != 1 ]; then
	GZ=$TRACE.gz
	if [ ! -s "$GZ" ]; then
		log "compressing $GZ (gzip -6, once)"
		gzip -6 -c "$TRACE" >"$GZ.part" && mv "$GZ.part" "$GZ"
	fi
	GZ_BYTES=$(stat -c %s "$GZ")
	warm "$GZ"
	log "zcat, igzip and tix index of the .gz (best of $INDEX_RUNS each)"
	T_ZCAT=$(best_of $INDEX_RUNS sh -c 'zcat "$1" >/dev/null' zcat "$GZ")
	if command -v igzip >/dev/null; then
		T_IGZIP=$(best_of $INDEX_RUNS sh -c 'igzip -dc "$1" >/dev/null' igzip "$GZ")
	fi
	"$TIX" index "$GZ" -o "$BENCH_DIR/gz.tix" >/dev/null 2>&1 || die "tix index of the .gz failed"
	# the plain and the gzipped trace in turns, so that both see the same load
	T_GZ=""; T_INDEX_TURNS=""
	for ((i = 0; i < INDEX_RUNS; i++)); do
		a=$(best_of 1 "$TIX" index "$TRACE" -o "$TIXOUT")
		b=$(best_of 1 "$TIX" index "$GZ" -o "$BENCH_DIR/gz.tix")
		T_INDEX_TURNS=$(python3 -c "print(min(x for x in ($a, ${T_INDEX_TURNS:-1e9})))")
		T_GZ=$(python3 -c "print(min(x for x in ($b, ${T_GZ:-1e9})))")
	done
	PG=$(peak_anon "$TIX" index "$GZ" -o "$BENCH_DIR/gz.tix")
	ANON_GZ=$(jget "$PG" peak_anon_kb)
	rm -f "$BENCH_DIR/gz.tix"
	warm "$TRACE"
fi

# -- reopen against index size ---------------------------------------------------
REOPEN_ROWS=""
for mb in ${BENCH_REOPEN_MB-150 2000 5000}; do
	RX=$BENCH_DIR/reopen-$mb.tix
	if [ ! -s "$RX" ]; then
		gen "$mb" "$BENCH_DIR/reopen-$mb.json"
		"$TIX" index "$BENCH_DIR/reopen-$mb.json" -o "$RX" >/dev/null 2>&1 || die "tix index of reopen-$mb failed"
		stat -c %s "$BENCH_DIR/reopen-$mb.json" >"$RX.jsonsize"
		[ "${BENCH_KEEP:-0}" = 1 ] || rm -f "$BENCH_DIR/reopen-$mb.json"
	fi
	cat "$RX" >/dev/null
	t=$(best_of $REOPEN_RUNS "$TIX" summary "$RX" --top 1)
	REOPEN_ROWS="$REOPEN_ROWS $mb:$t:$(cat "$RX.jsonsize"):$(stat -c %s "$RX")"
	LARGEST_TIX=$RX
done

TUI_MAX=""; TUI_TABLE=""
if [ "${BENCH_TUI:-0}" = 1 ] && [ -n "${LARGEST_TIX:-}" ]; then
	log "TUI key latency on $LARGEST_TIX"
	TUI_TABLE=$(TIX="$TIX" BENCH_DIR="$BENCH_DIR" TUI_TIX="$LARGEST_TIX" "$REPO/bench/tui_latency.sh") ||
		die "tui_latency.sh failed"
	TUI_MAX=$(echo "$TUI_TABLE" | sed -n 's/^all [0-9]* keys: max \([0-9.]*\) ms.*/\1/p')
fi

T_REAL=""; REAL_MSG=""; REAL_BYTES=""; ANON_REAL=""
if [ -f "$REAL_TRACE" ]; then
	log "tix index of $(basename "$REAL_TRACE") (best of $INDEX_RUNS)"
	T_REAL=$(best_of $INDEX_RUNS "$TIX" index "$REAL_TRACE" -o "$BENCH_DIR/real.tix")
	REAL_MSG=$(cat "$BENCH_DIR/last.out")
	REAL_BYTES=$(stat -c %s "$REAL_TRACE")
	PR=$(peak_anon "$TIX" index "$REAL_TRACE" -o "$BENCH_DIR/real.tix")
	ANON_REAL=$(jget "$PR" peak_anon_kb)
else
	log "no $REAL_TRACE: skipping the real trace"
fi

T_PY=""; PY_KB=""
if [ "${SKIP_PYTHON:-0}" != 1 ]; then
	log "python3 json.load (once; this takes a while)"
	warm "$TRACE"
	P=$(peak_anon python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TRACE")
	T_PY=$(jget "$P" wall_s)
	PY_KB=$(jget "$P" maxrss_kb)
fi

fi

MEM_ROWS=""
for n in ${MEMORY_EVENTS-10000000 40000000}; do
	tiny=$BENCH_DIR/tiny-$n.json
	if [ ! -s "$tiny" ]; then
		log "generating $tiny"
		python3 "$REPO/bench/gen_tiny.py" "$n" "$tiny.part" && mv "$tiny.part" "$tiny" || die "gen_tiny failed"
	fi
	log "tix index of $n tiny kernel events (peak anonymous memory)"
	warm "$tiny"
	PM=$(peak_anon "$TIX" index "$tiny" -o "$BENCH_DIR/tiny.tix")
	MEM_ROWS="$MEM_ROWS $n:$(jget "$PM" peak_anon_kb):$(jget "$PM" wall_s):$(stat -c %s "$tiny")"
	rm -f "$BENCH_DIR/tiny.tix"
done

# -- report ----------------------------------------------------------------------
export T_FLOOR T_GZ T_ZCAT T_IGZIP GZ_BYTES ANON_GZ T_INDEX_TURNS REOPEN_ROWS TUI_MAX TUI_TABLE
export MEM_ROWS T_INDEX T_WALK T_PY PY_KB ANON1 HWM1 ANON2 T2 JSON_BYTES JSON2_BYTES TIX_BYTES \
	T_REOPEN WALK_EVENTS WALK_IMPL WALK_CXX INDEX_MSG INDEX2_MSG T_REAL REAL_MSG REAL_BYTES ANON_REAL \
	TIX REAL_TRACE BENCH_DIR
python3 - <<'EOF'
import json, os, re
e = os.environ
for k in ("INDEX_MSG", "INDEX2_MSG", "REAL_MSG"):  # tix's own timing is of the last run only
    e[k] = re.sub(r" in [0-9.]+ s\s*$", "", e.get(k, "").strip())
f = lambda k: float(e[k]) if e.get(k) else None
t_index, t_walk, t_py = f("T_INDEX"), f("T_WALK"), f("T_PY")
jb, tb = f("JSON_BYTES"), f("TIX_BYTES")
anon1 = f("ANON1") / 1024 if e.get("ANON1") else None
anon2 = f("ANON2") / 1024 if e.get("ANON2") else None
rows = []
def row(what, value, note=""):
    rows.append((what, value, note))
main = t_index is not None  # not with `bench/run.sh memory`
if main:
  row("trace", f"{jb/1e6:.1f} MB", f"{int(e['WALK_EVENTS']):,} events in traceEvents")
  row("tix index (best of 3)", f"{t_index:.3f} s", f"{jb/1e6/t_index:.0f} MB/s; {e['INDEX_MSG'].strip()}")
  row("bare simdjson walk (best of 3)", f"{t_walk:.3f} s", f"{jb/1e6/t_walk:.0f} MB/s, On-Demand {e['WALK_IMPL']}, {e['WALK_CXX']}")
  if t_py is not None:
      row("python3 json.load (once)", f"{t_py:.1f} s", f"peak RSS {f('PY_KB')/1024:.0f} MB")
  row("tix index peak anon memory", f"{anon1:.1f} MB", f"VmHWM {f('HWM1')/1024:.0f} MB (counts the mapped file)")
  row(".tix size", f"{tb/1e6:.1f} MB", f"{100*tb/jb:.1f}% of the JSON")
  row("reopen: tix summary X.tix --top 1", f"{1000*f('T_REOPEN'):.1f} ms", "best of 5, process start included")
if e.get("T2"):
    row("tix index, 2x trace", f"{f('T2'):.3f} s", f"{f('JSON2_BYTES')/1e6:.0f} MB; {e['INDEX2_MSG'].strip()}")
    row("tix index peak anon, 2x trace", f"{anon2:.1f} MB", "")
reopen = []
if main:
    row("floor: 2-thread walk with args", f"{f('T_FLOOR'):.3f} s", "every args value's text from the key positions")
    if e.get("T_GZ"):
        row(".json.gz (gzip -6)", f"{f('GZ_BYTES')/1e6:.1f} MB", f"{jb/f('GZ_BYTES'):.1f}x smaller")
        row("zcat > /dev/null (best of 3)", f"{f('T_ZCAT'):.3f} s", "zlib, one thread")
        if e.get("T_IGZIP"):
            row("igzip -dc > /dev/null (best of 3)", f"{f('T_IGZIP'):.3f} s", "ISA-L, one thread")
        row("tix index .json.gz (best of 3)", f"{f('T_GZ'):.3f} s",
            f"plain {f('T_INDEX_TURNS'):.3f} s in the same turns; peak anon {f('ANON_GZ')/1024:.1f} MB")
    for item in e.get("REOPEN_ROWS", "").split():
        mb, t, jsz, tsz = item.split(":")
        reopen.append((int(mb), float(t), float(jsz), float(tsz)))
        row(f"reopen, {float(jsz)/1e9:.2f} GB trace", f"{1000*float(t):.1f} ms",
            f".tix {float(tsz)/1e6:.0f} MB; summary --top 1, best of 5")
    if e.get("TUI_MAX"):
        row("TUI keys, largest index", f"{f('TUI_MAX'):.1f} ms", "max over bench/tui_latency.sh's keys")
mem = [tuple(float(x) for x in r.split(":")) for r in e.get("MEM_ROWS", "").split()]
for n, kb, wall, size in mem:
    row(f"tix index, {n/1e6:.0f}M tiny kernels", f"{kb/1024:.1f} MB",
        f"peak anon; {size/1e9:.2f} GB of JSON indexed in {wall:.1f} s")
if e.get("T_REAL"):
    row(f"tix index, {os.path.basename(e['REAL_TRACE'])}", f"{1000*f('T_REAL'):.0f} ms",
        f"{f('REAL_BYTES')/1e6:.2f} MB gz, peak anon {f('ANON_REAL')/1024:.1f} MB; {e['REAL_MSG'].strip()}")
w = max(len(r[0]) for r in rows)
print(f"\ntix benchmark: {e['TIX']}\n")
for what, value, note in rows:
    print(f"  {what:<{w}}  {value:>10}  {note}")
checks = []
if main and t_py is not None:
    checks.append(("json.load / tix index", t_py / t_index, ">= 60", t_py / t_index >= 60, "x"))
if main:
    checks.append(("tix index / bare walk", t_index / t_walk, "<= 2", t_index / t_walk <= 2, "x"))
    checks.append(("tix index / floor", t_index / f("T_FLOOR"), "<= 1.3", t_index / f("T_FLOOR") <= 1.3, "x"))
if e.get("T_GZ"):
    r = f("T_GZ") / f("T_INDEX_TURNS")
    checks.append((".gz index / plain index", r, "<= 1.25", r <= 1.25, "x"))
    checks.append(("peak anon MB, .gz", f("ANON_GZ") / 1024, "<= 256", f("ANON_GZ") / 1024 <= 256, ""))
if len(reopen) >= 2:
    lo, hi = min(reopen), max(reopen)
    r = hi[1] / lo[1]
    checks.append((f"reopen {hi[2]/1e9:.1f} GB / {lo[2]/1e9:.2f} GB", r, "<= 1.5", r <= 1.5, "x"))
if e.get("TUI_MAX"):
    checks.append(("TUI key ms, largest", f("TUI_MAX"), "< 50", f("TUI_MAX") < 50, ""))
if main:
    checks.append(("peak anon MB", anon1, "<= 256", anon1 <= 256, ""))
if anon2 is not None:
    checks.append(("peak anon MB, 2x trace", anon2, "<= 256", anon2 <= 256, ""))
for n, kb, _, _ in mem:
    checks.append((f"peak anon MB, {n/1e6:.0f}M events", kb / 1024, "< 64", kb / 1024 < 64, ""))
if main:
    checks.append((".tix size %", 100 * tb / jb, "<= 12", 100 * tb / jb <= 12, ""))
    checks.append(("reopen ms", 1000 * f("T_REOPEN"), "< 50", 1000 * f("T_REOPEN") < 50, ""))
print("\n  target                      measured   target   ")
for name, v, tgt, ok, unit in checks:
    print(f"  {name:<26} {v:>9.2f}{unit:1} {tgt:>8}   {'met' if ok else 'MISSED'}")
if e.get("TUI_TABLE"):
    print("\n" + "\n".join("  " + l for l in e["TUI_TABLE"].splitlines()))
res = {k.lower(): e.get(k) for k in ("T_INDEX", "T_WALK", "T_PY", "T_REOPEN", "T2", "T_REAL",
                                      "JSON_BYTES", "JSON2_BYTES", "TIX_BYTES", "WALK_EVENTS",
                                      "T_FLOOR", "T_GZ", "T_ZCAT", "T_IGZIP", "GZ_BYTES",
                                      "T_INDEX_TURNS", "TUI_MAX")}
res["reopen"] = [{"mb": m, "seconds": t, "json_bytes": j, "tix_bytes": x} for m, t, j, x in reopen]
res.update(peak_anon_mb=anon1, peak_anon_2x_mb=anon2,
           peak_anon_tiny_mb={str(int(n)): kb / 1024 for n, kb, _, _ in mem},
           checks={n: {"value": round(v, 3), "target": t, "met": ok} for n, v, t, ok, _ in checks})
with open(os.path.join(e["BENCH_DIR"], "results.json"), "w") as fh:
    json.dump(res, fh, indent=1)
print(f"\n  (results also in {e['BENCH_DIR']}/results.json)")
EOF

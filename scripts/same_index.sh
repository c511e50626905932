#!/usr/bin/env bash
# Proves that a change left every index byte for byte as it was: builds the
# .tix of each trace with two tix binaries, on one thread and with the
# two-thread finish forced, and compares them with cmp.
#
#   scripts/same_index.sh OLD_TIX NEW_TIX [TRACE...]
#
# OLD_TIX and NEW_TIX are tix binaries, or git revisions of this repository
# (e.g. `main`, a commit): a revision is built once with `git archive` into
# $TMPDIR/same_index-bin-SHA (target tix only) and reused on later runs.
#
# The traces: every trace of ../shared/traces and ../shared/traces/real
# (copied first into a scratch folder: nothing is written into ../shared),
# the graph replays of real/ with their capture traces (--graph-capture), a
# few generator traces (tests/gen/gen_trace.py: markers, python-frame stacks
# with_stack, deep nesting, a merged two-process trace, work before the
# trace, a truncated file, ranks, a graph replay with its capture), the two
# hand-made stacks of tests/core/e2e_generated.py (400 deep; the parents
# phase's hand-back), a capture journal (gen_graph_journal, from the build
# folder of NEW_TIX or else ./build, when there is one), and every TRACE given.
#
# Each trace is indexed by OLD_TIX with TIX_THREADS=1 (the reference), then
# by both binaries with TIX_THREADS=1, TIX_SPLIT_ROWS=2 and TIX_SPLIT_ROWS=50
# (the finish shared by two threads from that many rows: docs/RELIABILITY.md);
# every index must equal the reference.  One line per trace, then a verdict;
# exit 1 on any difference or failure to index, 2 on bad usage.
#
# Environment: TMPDIR (the scratch folder goes there), SAME_INDEX_KEEP=1
# keeps it, SAME_INDEX_JOBS (default 2) traces indexed at once.
set -uo pipefail
unset TIX_THREADS TIX_SPLIT_ROWS TIX_SPLIT_MIN
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 2 ]; then
	sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
old_arg=$1 new_arg=$2
shift 2
tmp=${TMPDIR:-/tmp}
jobs=${SAME_INDEX_JOBS:-2}

# A binary as given, or a revision built into a cached folder.
resolve_tix() {
	local arg=$1 sha dir
	if [ -x "$arg" ] && [ -f "$arg" ]; then
		(cd "$(dirname "$arg")" && echo "$PWD/$(basename "$arg")")
		return 0
	fi
	if ! sha=$(git -C "$here" rev-parse --verify --quiet "$arg^{commit}"); then
		echo "same_index: $arg is neither a tix binary nor a revision" >&2
		return 1
	fi
	dir=$tmp/same_index-bin-$sha
	if [ ! -x "$dir/build/cli/tix" ]; then
		echo "same_index: building $arg (${sha:0:12}) in $dir" >&2
		rm -rf "$dir" && mkdir -p "$dir/src" &&
			git -C "$here" archive "$sha" | tar -x -C "$dir/src" &&
			cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir/cmake.log" 2>&1 &&
			cmake --build "$dir/build" -j2 --target tix >>"$dir/cmake.log" 2>&1 || {
			echo "same_index: building $arg failed, see $dir/cmake.log" >&2
			return 1
		}
	fi
	echo "$dir/build/cli/tix"
}

old=$(resolve_tix "$old_arg") || exit 2
new=$(resolve_tix "$new_arg") || exit 2
work=$(mktemp -d "$tmp/same_index.XXXXXX") || exit 2
if [ "${SAME_INDEX_KEEP:-0}" != 1 ]; then
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/t" "$work/out"
start=$(date +%s)

# ---- the traces: one line "NAME<TAB>PATH<TAB>EXTRA ARGS" each in list ----
list=$work/list
: >"$list"
add() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$list"; }

shared=$here/../shared/traces
for d in "$shared" "$shared/real"; do
	for f in "$d"/*.json "$d"/*.json.gz; do
		[ -f "$f" ] || continue
		sub=${d#"$shared"}
		name=${sub:+${sub#/}/}$(basename "$f")
		mkdir -p "$work/t/$(dirname "$name")"
		cp "$f" "$work/t/$name"
		add "$name" "$work/t/$name"
	done
done
for pair in sglang_qwen3_decode.replay:sglang_qwen3_decode.capture_bs32 \
	vllm_decode_full.replay:vllm_decode_full.capture; do
	r=$work/t/real/${pair%%:*}.json.gz c=$work/t/real/${pair##*:}.json.gz
	[ -f "$r" ] && [ -f "$c" ] && add "real/${pair%%:*} --graph-capture" "$r" "--graph-capture $c"
done

gen() { python3 "$here/tests/gen/gen_trace.py" -q "$@"; }
g=$work/t/gen
mkdir -p "$g"
small=(--steps 3 --layers 6)
gen "${small[@]}" -o "$g/profilerstep.json" && add gen/profilerstep.json "$g/profilerstep.json"
gen "${small[@]}" --marker sglang --prefill --bs 4 --seed 2 -o "$g/sglang.json.gz" &&
	add gen/sglang.json.gz "$g/sglang.json.gz"
gen "${small[@]}" --marker vllm --layout interleaved --seed 3 -o "$g/vllm.json" &&
	add gen/vllm.json "$g/vllm.json"
gen "${small[@]}" --marker none --seed 4 -o "$g/nomarker.json" && add gen/nomarker.json "$g/nomarker.json"
gen "${small[@]}" --python-frames --stack-depth 12 --with-stack --seed 5 -o "$g/stack.json" &&
	add gen/stack.json "$g/stack.json"
gen "${small[@]}" --two-processes --pre-window 40 --seed 6 -o "$g/merged_prewindow.json" &&
	add gen/merged_prewindow.json "$g/merged_prewindow.json"
gen "${small[@]}" --python-frames --truncate-at 0.7 --seed 7 -o "$g/truncated.json" &&
	add gen/truncated.json "$g/truncated.json"
gen "${small[@]}" --ranks 2 --slow-rank 1 --seed 8 -o "$g/tp.json" &&
	for f in "$g"/tp-rank*.json; do add "gen/$(basename "$f")" "$f"; done
gen --steps 4 --layers 6 --marker sglang --graph --capture-out "$g/graph_capture.json" \
	--capture-batches 1,2 --graph-reorder --seed 9 -o "$g/graph_replay.json" &&
	add gen/graph_replay.json "$g/graph_replay.json" &&
	add gen/graph_capture.json "$g/graph_capture.json" &&
	add "gen/graph_replay.json --graph-capture" "$g/graph_replay.json" "--graph-capture $g/graph_capture.json"
python3 - "$here/tests/core" "$g" <<'EOF' && add gen/deep.json "$g/deep.json" && add gen/handback.json "$g/handback.json"
import sys
sys.path.insert(0, sys.argv[1])
import e2e_generated as e
e.deep_trace(sys.argv[2] + "/deep.json")
e.handback_trace(sys.argv[2] + "/handback.json")
EOF
gj=$(dirname "$new")/../tests/capture/gen_graph_journal
[ -x "$gj" ] || gj=$here/build/tests/capture/gen_graph_journal
if [ -x "$gj" ] && j=$("$gj" "$g" 3000 3 40 2>/dev/null) && [ -f "$j" ]; then
	add gen/graph.journal "$j"
fi
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "same_index: $f: no such file" >&2
		exit 2
	fi
	add "$f" "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done

# ---- index each with both binaries, each way; compare with the reference ----
# The captures of a --graph-capture run are indexed first, on their own
# line, so that their cached .tix (written beside them) is made by one
# binary in one mode before any replay reads it.
one() { # N NAME PATH EXTRA: prints "same|DIFF|FAIL NAME: detail"
	local n=$1 name=$2 path=$3 extra=$4 o=$work/out/$1 ref bin mode how out rc
	mkdir -p "$o"
	ref=$o/ref.tix
	# shellcheck disable=SC2086 # extra holds "--graph-capture PATH"
	if ! TIX_THREADS=1 "$old_tix" index "$path" $extra -o "$ref" >"$o/ref.log" 2>&1; then
		printf 'FAIL %s: the old binary does not index it: %s\n' "$name" "$(tail -1 "$o/ref.log")"
		return
	fi
	local bad=""
	for bin in old new; do
		for mode in THREADS=1 SPLIT_ROWS=2 SPLIT_ROWS=50; do
			[ "$bin$mode" = oldTHREADS=1 ] && continue
			out=$o/$bin.${mode#*=}.${mode%%=*}.tix
			how=${bin}_tix
			# shellcheck disable=SC2086
			env "TIX_$mode" "${!how}" index "$path" $extra -o "$out" >"$o/$bin.$mode.log" 2>&1
			rc=$?
			if [ $rc -ne 0 ]; then
				bad="$bad $bin/$mode:exit$rc"
			elif ! cmp -s "$ref" "$out"; then
				bad="$bad $bin/$mode:$(cmp "$ref" "$out" 2>&1 | sed 's/.*differ: //')"
			fi
		done
	done
	if [ -z "$bad" ]; then
		printf 'same %s (%s bytes)\n' "$name" "$(stat -c %s "$ref")"
	else
		printf 'DIFF %s:%s\n' "$name" "$bad"
	fi
}
export -f one
export work old_tix=$old new_tix=$new
# plain traces first (captures among them), then the --graph-capture runs
run_lines() { awk -F'\t' -v want="$1" '($3 != "") == want { print NR "\t" $0 }' "$list" |
	xargs -d '\n' -P "$jobs" -I{} bash -c 'IFS=$'"'\t'"' read -r n name path extra <<<"$1"; one "$n" "$name" "$path" "$extra"' _ {}; }
results=$work/results
{ run_lines 0; run_lines 1; } | tee "$results"

total=$(wc -l <"$results")
same=$(grep -c '^same ' "$results")
echo "same_index: $old_arg -> $new_arg: $same of $total traces identical," \
	"one thread and two (TIX_SPLIT_ROWS=2, 50), in $(($(date +%s) - start)) s"
if [ "$same" -ne "$total" ] || [ "$total" -eq 0 ]; then
	echo "same_index: DIFFERENT (kept: SAME_INDEX_KEEP=1 keeps the indexes under \$TMPDIR)"
	exit 1
fi
echo "same_index: IDENTICAL"

#!/usr/bin/env bash
# bench/graph_journal.sh: `tix index` of capture journals of an SGLang-like
# rank that decodes with CUDA graphs, at 125k, 250k, 500k and 1M replayed
# kernels, with the captured nodes growing with them (one graph of 780
# nodes per 20k kernels): linear time means a flat time per kernel.  See
# docs/PERFORMANCE.md ("Capture journals").
#
#   bench/graph_journal.sh            # TIX=... BUILD=... to use other binaries
#
# Also times the journal reader alone (READER: the journal into a sink that
# only counts, i.e. the join without the index builder).
#
# Environment: TIX (default REPO/build/cli/tix), GEN (default
# REPO/build/tests/capture/gen_graph_journal), READER (default
# REPO/build/tests/capture/test_capture_graph_scale), BENCH_DIR (default
# /tmp/tix-bench-graph), RUNS (best of, default 3).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIX=${TIX:-$REPO/build/cli/tix}
GEN=${GEN:-$REPO/build/tests/capture/gen_graph_journal}
READER=${READER:-$REPO/build/tests/capture/test_capture_graph_scale}
BENCH_DIR=${BENCH_DIR:-/tmp/tix-bench-graph}
RUNS=${RUNS:-3}
[ -x "$TIX" ] || { echo "bench: no tix at $TIX" >&2; exit 2; }
[ -x "$GEN" ] || { echo "bench: no generator at $GEN (build the tests)" >&2; exit 2; }
[ -x "$READER" ] || { echo "bench: no reader at $READER (build the tests)" >&2; exit 2; }
mkdir -p "$BENCH_DIR"

now() { date +%s.%N; }
printf "%-10s %7s %8s %5s %9s %10s %9s %10s\n" kernels graphs nodes MB "index s" "ns/kernel" \
	"reader s" "ns/kernel"
for k in 125000 250000 500000 1000000; do
	g=$((k / 20000))
	[ $g -ge 1 ] || g=1
	d=$BENCH_DIR/k$k
	rm -rf "$d"
	mkdir -p "$d"
	j=$("$GEN" "$d" $k $g 780)
	best=
	for _ in $(seq "$RUNS"); do
		t0=$(now)
		"$TIX" index "$j" -o "$d/out.tix" >/dev/null 2>"$d/err" || { cat "$d/err" >&2; exit 2; }
		t=$(echo "$(now) - $t0" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	rbest=
	for _ in $(seq "$RUNS"); do
		t=$("$READER" "$j" $k 1000 | sed -n 's/.* in \([0-9.]*\) s$/\1/p')
		[ -n "$t" ] || { echo "bench: the reader failed on $j" >&2; exit 2; }
		if [ -z "$rbest" ] || [ "$(echo "$t < $rbest" | bc)" = 1 ]; then rbest=$t; fi
	done
	mb=$(($(stat -c %s "$j") / 1048576))
	printf "%-10s %7s %8s %5s %9.3f %10.0f %9.3f %10.0f\n" $k $g $((g * 780 * 2)) $mb "$best" \
		"$(echo "$best * 1000000000 / $k" | bc -l)" "$rbest" "$(echo "$rbest * 1000000000 / $k" | bc -l)"
	rm -rf "$d"
done

#!/usr/bin/env bash
# What findings cost (issue 18 item 6), as ratios in one run on one file:
#   - tix index with the findings phases against the same tix before them
#     (BASE, built from a git revision), interleaved, best of RUNS each:
#     the target is <= 1.05x; and the two phases' own share of the finish
#     (TIX_TIMING);
#   - tix findings on the index (text and JSON), best of RUNS: < 200 ms;
#   - summary --by op (the roofline columns) beside it.
#
#   bench/findings.sh BASE_REV [TRACE]
#
# BASE_REV is a git revision of this repository (its tix is built once with
# git archive into $BENCH_DIR/base-SHA) or a tix binary.  TRACE defaults to
# the story trace of bench/run.sh ($BENCH_DIR/story-485.json, made when
# missing).  Environment: TIX (default build/cli/tix), BENCH_DIR (default
# /tmp/tix-bench), RUNS (default 5).  Prints a table; exits non-zero only
# on errors.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIX=${TIX:-$REPO/build/cli/tix}
BENCH_DIR=${BENCH_DIR:-/tmp/tix-bench}
RUNS=${RUNS:-5}
die() { echo "bench/findings: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: bench/findings.sh BASE_REV [TRACE]"
[ -x "$TIX" ] || die "no tix binary at $TIX"
mkdir -p "$BENCH_DIR"

base=$1
if [ ! -x "$base" ]; then
	sha=$(git -C "$REPO" rev-parse --short "$base") || die "no revision $base"
	dir=$BENCH_DIR/base-$sha
	if [ ! -x "$dir/build/cli/tix" ]; then
		echo "bench/findings: building $base ($sha) in $dir" >&2
		rm -rf "$dir" && mkdir -p "$dir/src"
		git -C "$REPO" archive "$sha" | tar -x -C "$dir/src"
		cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir/cmake.log" 2>&1
		cmake --build "$dir/build" -j2 --target tix >>"$dir/cmake.log" 2>&1 || die "build failed: $dir/cmake.log"
	fi
	base=$dir/build/cli/tix
fi

trace=${2:-$BENCH_DIR/story-485.json}
if [ ! -f "$trace" ]; then
	echo "bench/findings: generating $trace" >&2
	python3 "$REPO/tests/gen/gen_trace.py" --target-mb 485 --python-frames --stack-depth 12 -o "$trace.part" -q
	mv "$trace.part" "$trace"
fi

# best (minimum) wall seconds of a command, RUNS times
now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

tb=() tn=() cb=() cn=() phase=()
# CPU seconds (user + system) of the last command run through cpu_of: on a
# loaded machine wall time spreads, CPU time much less
cpu_of() {
	/usr/bin/time -f '%U %S' -o "$BENCH_DIR/cpu.txt" "$@"
}
cpu_last() { awk '{printf "%.3f", $1 + $2}' "$BENCH_DIR/cpu.txt"; }
for i in $(seq "$RUNS"); do
	for side in base new; do
		bin=$TIX out=$BENCH_DIR/findings-new.tix
		[ $side = base ] && bin=$base out=$BENCH_DIR/findings-base.tix
		t0=$(now)
		TIX_TIMING=1 cpu_of "$bin" index "$trace" -o "$out" >/dev/null 2>"$BENCH_DIR/timing-$side.txt"
		t1=$(now)
		if [ $side = base ]; then
			tb+=("$(secs "$t0" "$t1")") cb+=("$(cpu_last)")
		else
			tn+=("$(secs "$t0" "$t1")") cn+=("$(cpu_last)")
		fi
	done
	phase+=("$(awk '/timing: (breakdown|op-shapes) / {for (i = 1; i <= NF; i++) if ($i == "s") {s += $(i - 1); break}} END {printf "%.3f", s}' "$BENCH_DIR/timing-new.txt")")
done
best() { printf '%s\n' "$@" | sort -n | head -1; }
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
b=$(best "${tb[@]}") n=$(best "${tn[@]}")
bc=$(best "${cb[@]}") nc=$(best "${cn[@]}")

tf=() tj=() to=()
for i in $(seq "$RUNS"); do
	t0=$(now); "$TIX" findings "$BENCH_DIR/findings-new.tix" >/dev/null; t1=$(now); tf+=("$(secs "$t0" "$t1")")
	t0=$(now); "$TIX" findings "$BENCH_DIR/findings-new.tix" --format json >/dev/null; t1=$(now); tj+=("$(secs "$t0" "$t1")")
	t0=$(now); "$TIX" summary "$BENCH_DIR/findings-new.tix" --by op >/dev/null 2>&1; t1=$(now); to+=("$(secs "$t0" "$t1")")
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
printf 'bench/findings: %s, %s of JSON, %s runs each, load %s\n' "$(basename "$trace")" \
	"$(du -h "$trace" | cut -f1)" "$RUNS" "$load"
printf '  %-44s %8s %8s\n' "" "best" "median"
printf '  %-44s %7ss %7ss\n' "tix index, before the findings phases" "$b" "$(med "${tb[@]}")"
printf '  %-44s %7ss %7ss\n' "tix index, with them" "$n" "$(med "${tn[@]}")"
printf '  %-44s %8s\n' "ratio (target <= 1.05)" "$(python3 -c "print('%.3fx' % ($n / $b))")"
printf '  %-44s %7ss %7ss\n' "CPU time (user + system), before" "$bc" "$(med "${cb[@]}")"
printf '  %-44s %7ss %7ss\n' "CPU time, with them" "$nc" "$(med "${cn[@]}")"
printf '  %-44s %8s\n' "CPU ratio (target <= 1.05)" "$(python3 -c "print('%.3fx' % ($nc / $bc))")"
printf '  %-44s %7ss %7ss\n' "the two phases (breakdown, op-shapes)" "$(best "${phase[@]}")" "$(med "${phase[@]}")"
printf '  %-44s %7ss %7ss\n' "tix findings (target < 0.200 s)" "$(best "${tf[@]}")" "$(med "${tf[@]}")"
printf '  %-44s %7ss %7ss\n' "tix findings --format json" "$(best "${tj[@]}")" "$(med "${tj[@]}")"
printf '  %-44s %7ss %7ss\n' "tix summary --by op (roofline columns)" "$(best "${to[@]}")" "$(med "${to[@]}")"

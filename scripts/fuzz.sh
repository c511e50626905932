#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan) and runs each
# for SECONDS (default 60), one process each, FUZZ_JOBS at a time.  Prints
# one line per target, in the order given; exits 1 when any target found a crash, a sanitizer
# report, a leak, a timeout (an input slower than 10 s) or ran out of memory
# (2 GB), leaving the input in $BUILD_FUZZ/artifacts/ and the log in
# $BUILD_FUZZ/logs/.
#
#   scripts/fuzz.sh [SECONDS]
#
# Environment:
#   BUILD_FUZZ    build folder (default build-fuzz)
#   FUZZ_TARGETS  which targets (default: json json_gz json_big tix tix_fixsum names text)
#   FUZZ_JOBS     targets run at once (default: the cores, nproc)
#   CC, CXX       clang and clang++ (default clang, clang++)
# New inputs the fuzzers find go to $BUILD_FUZZ/corpus/<target>; the seeds
# in fuzz/corpus/ and the regression inputs in fuzz/regress/ are only read.
# Reproduce a finding:  $BUILD_FUZZ/fuzz_<target> $BUILD_FUZZ/artifacts/<file>
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
BUILD_FUZZ=${BUILD_FUZZ:-build-fuzz}
TARGETS=${FUZZ_TARGETS:-json json_gz json_big tix tix_fixsum names text}
CC=${CC:-clang}
CXX=${CXX:-clang++}
command -v "$CC" >/dev/null || { echo "fuzz.sh: $CC not found (apt-get install clang libclang-rt-dev)" >&2; exit 2; }

cmake -S fuzz -B "$BUILD_FUZZ" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" >/dev/null || exit 2
cmake --build "$BUILD_FUZZ" -j "$(nproc)" >"$BUILD_FUZZ/build.log" 2>&1 || { tail -30 "$BUILD_FUZZ/build.log"; exit 2; }
mkdir -p "$BUILD_FUZZ/artifacts" "$BUILD_FUZZ/logs"

# One target's run; its line (and a failure's details) go to
# $BUILD_FUZZ/logs/$t.result, printed in order when all are done.
run_target() {
	local t=$1 seeds maxlen dict work dirs log rc runs secs cov corp art
	seeds=fuzz/corpus/$t
	case $t in
	tix_fixsum) seeds=fuzz/corpus/tix ;;
	esac
	case $t in
	names | text) maxlen=4096 ;;
	*) maxlen=16384 ;;
	esac
	dict=()
	case $t in
	json | json_gz | json_big | names | text) dict=(-dict=fuzz/tix.dict) ;;
	esac
	work=$BUILD_FUZZ/corpus/$t
	mkdir -p "$work"
	dirs=("$work" "$seeds")
	[ -d "fuzz/regress/$t" ] && dirs+=("fuzz/regress/$t")
	log=$BUILD_FUZZ/logs/$t.log
	"$BUILD_FUZZ/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
		-max_len=$maxlen -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$BUILD_FUZZ/artifacts/$t-" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		printf 'ok    fuzz_%-11s %5s s  %9s runs  %s  %s\n' "$t" "${secs:-?}" "${runs:-?}" "$cov" "$corp"
		return 0
	fi
	art=$(grep -a -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //')
	printf 'FAIL  fuzz_%-11s exit %d after %s runs: %s\n' "$t" $rc "${runs:-?}" \
		"$(grep -a -m1 -E 'ERROR: |runtime error|tix fuzz:|SUMMARY' "$log" | cut -c1-200)"
	echo "      input: ${art:-none}; log: $log"
	grep -a -E -A25 'ERROR: |runtime error|tix fuzz:' "$log" | head -40 | sed 's/^/      /'
	return 1
}

JOBS=${FUZZ_JOBS:-$(nproc)}
pids=()
for t in $TARGETS; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	run_target "$t" >"$BUILD_FUZZ/logs/$t.result" 2>&1 &
	pids+=($!)
done
fail=0
for p in "${pids[@]}"; do
	wait "$p" || fail=1
done
for t in $TARGETS; do
	cat "$BUILD_FUZZ/logs/$t.result"
done
exit $fail

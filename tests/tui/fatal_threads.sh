#!/bin/sh
# Drives tui_fatal_threads (fatal_threads.c): an index of the bundled sample
# cut under 8 threads that read it at once, RUNS times (default 30): each
# run must exit 2 with exactly one line, the one that names the index.
#
#   fatal_threads.sh TIX TUI_FATAL_THREADS SAMPLE WORK_DIR
set -u
tix=$1 prog=$2 sample=$3 work=$4
runs=${FATAL_THREADS_RUNS:-30}
rm -rf "$work" && mkdir -p "$work" || exit 1
"$tix" index "$sample" -o "$work/base.tix" >/dev/null 2>"$work/index.err" || {
	echo "FAIL  the sample indexes: $(cat "$work/index.err")"
	exit 1
}
fails=0
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	cp "$work/base.tix" "$work/cut.tix"
	"$prog" "$work/cut.tix" 8 2>"$work/err" >/dev/null
	rc=$?
	lines=$(grep -c . "$work/err")
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] ||
		! grep -q "cut.tix: the index file changed while tix had it open" "$work/err"; then
		fails=$((fails + 1))
		echo "FAIL  run $i: exit $rc, $lines lines: $(head -c 300 "$work/err")"
	fi
done
if [ "$fails" -ne 0 ]; then
	echo "fatal_threads: $fails of $runs runs did not end with exit 2 and one line"
	exit 1
fi
echo "ok    $runs runs of 8 threads faulting at once on a cut index: exit 2, one line each"

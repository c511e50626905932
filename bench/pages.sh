#!/usr/bin/env bash
# Fresh pages and the finish, before and after (issue 23, items 3 and 4;
# docs/PERFORMANCE.md, "Round 5"): two tix binaries index the same trace in
# turns, the index rebuilt in place as bench/run.sh does, and the figures of
# each are put side by side as ratios (NEW / OLD), so the load of a shared
# machine falls on both alike.
#
#   bench/pages.sh OLD_TIX NEW_TIX TRACE [RUNS]
#
# Per binary: the best wall and CPU (user + system) seconds of RUNS (default
# 5) fresh processes, the median minor faults and the peak RSS
# (/usr/bin/time), then one TIX_TIMING=1 run of each (the phases of the
# finish).  The load average is said first and last.  Every index each run
# writes is compared with cmp against OLD's: a difference fails the script.
set -euo pipefail
if [ $# -lt 3 ]; then
	sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
old=$1 new=$2 trace=$3 runs=${4:-5}
dir=${TMPDIR:-/tmp}/bench-pages.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
echo "load: $(uptime | sed 's/.*load average: //')"
echo "trace: $trace ($(du -m "$trace" | cut -f1) MB), $runs runs each, in turns"
for b in old new; do
	"${!b}" index "$trace" -o "$dir/$b.tix" >/dev/null # the index exists: each run rebuilds it in place
done
for i in $(seq "$runs"); do
	for b in old new; do
		/usr/bin/time -f "%e %U %S %R %M" -o "$dir/$b.$i" "${!b}" index "$trace" -o "$dir/$b.tix" >/dev/null
		cmp -s "$dir/old.tix" "$dir/$b.tix" || { echo "pages: $b wrote another index (run $i)" >&2; exit 1; }
	done
done
for b in old new; do
	med=$(cat "$dir/$b".[0-9]* | awk '{print $4}' | sort -n | awk '{f[NR] = $1} END {print f[int((NR + 1) / 2)]}')
	cat "$dir/$b".[0-9]* | awk -v name="$b" -v med="$med" '
		{ if (NR == 1 || $1 < bw) bw = $1; if (NR == 1 || $2 + $3 < bc) bc = $2 + $3; if ($5 > m) m = $5 }
		END { printf "%s %.3f %.3f %d %.1f\n", name, bw, bc, med, m / 1024 }' >>"$dir/summary"
done
awk '
	{ name[NR] = $1; w[NR] = $2; c[NR] = $3; f[NR] = $4; rss[NR] = $5 }
	END {
		printf "%-4s %9s %9s %13s %10s\n", "", "wall s", "CPU s", "minor faults", "max RSS MB"
		for (i = 1; i <= 2; i++) printf "%-4s %9.3f %9.3f %13d %10.1f\n", name[i], w[i], c[i], f[i], rss[i]
		printf "%-4s %8.2fx %8.2fx %12.2fx\n", "new/old", w[2] / w[1], c[2] / c[1], f[2] / f[1]
	}' "$dir/summary"
for b in old new; do
	echo "-- $b, TIX_TIMING=1"
	TIX_TIMING=1 "${!b}" index "$trace" -o "$dir/$b.tix" 2>&1 >/dev/null | sed 's/^tix: timing: /  /'
done
echo "load: $(uptime | sed 's/.*load average: //')"

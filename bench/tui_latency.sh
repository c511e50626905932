#!/usr/bin/env bash
# Keystroke latency of the TUI on a large trace: every request, from the key
# to the redrawn screen, as the TUI itself logs it (TIX_TUI_TIMING).  The
# target (DESIGN.md) is 50 ms for every key on a 1.5M-event trace.
#
#   bench/tui_latency.sh                  # generates ~1.5M indexed events once
#   TIX=... BENCH_DIR=... bench/tui_latency.sh
#   TUI_TIX=BIG.tix bench/tui_latency.sh  # an index already built
#
# Needs tmux.  Prints one line per request kind (count, median, max) and the
# overall maximum; exits non-zero only on errors.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIX=${TIX:-$REPO/build/cli/tix}
BENCH_DIR=${BENCH_DIR:-/tmp/tix-bench}
STEPS=${TUI_BENCH_STEPS:-135}   # ~11k indexed events per step
TRACE=$BENCH_DIR/tui-$STEPS.json

command -v tmux >/dev/null || { echo "tui_latency: tmux is needed" >&2; exit 2; }
[ -x "$TIX" ] || { echo "tui_latency: no tix at $TIX" >&2; exit 2; }
mkdir -p "$BENCH_DIR"
if [ -n "${TUI_TIX:-}" ]; then # an index already built (bench/run.sh: its largest)
	TIXFILE=$TUI_TIX
else
	if [ ! -s "$TRACE" ]; then
		echo "tui_latency: generating $TRACE ($STEPS steps)" >&2
		python3 "$REPO/tests/gen/gen_trace.py" -q --steps "$STEPS" -o "$TRACE"
	fi
	"$TIX" index "$TRACE" -o "$TRACE.tix" >&2
	TIXFILE=$TRACE.tix
fi

LOG=$BENCH_DIR/tui-latency.log
: >"$LOG"
SOCK=tixbench$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
tm new-session -d -s b -x 160 -y 50 \
	"env LANG=C.UTF-8 TERM=xterm-256color TIX_TUI_TIMING=$LOG $TIX $TIXFILE"

# Waits until the screen shows $1 (the TUI answers; no fixed sleeps).
wait_for() {
	for _ in $(seq 1 200); do
		tm capture-pane -p -t b 2>/dev/null | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	echo "tui_latency: screen never showed '$1'" >&2
	tm capture-pane -p -t b >&2 || true
	exit 2
}
key() { tm send-keys -t b "$@"; sleep 0.15; }
# A copy longer than the status line is shown as plain text until Enter
# (tui/actions.c): give it the Enter, which the TUI does not time.
copied() { if tm capture-pane -p -t b | grep -qF "Press Enter to return"; then key Enter; fi; }

wait_for "Steps:"
key G; key g; key c                           # ends of the step list, hottest
key Enter; wait_for "Kernels:"                # the kernels of a step
key s; key s; key I; key t; key t
key S; key Down; key Enter                     # the sort menu
key : ; key 3 Enter                           # go to row 3
key y; copied; key Y; copied                  # copy the name, the row
key '>'; key '<'
key S; key Home; key Enter; key g              # back to Time%, the cast kernel on top
key Enter; wait_for "Launches:"               # its launches
key s; key s; key G; key g; key c
key p; key p                                  # group by shape
key / ; key u n r o l l e d Enter; key n; key N
key f ; key 5 5 7 4 9 6 Enter
key Enter; wait_for "Detail:"                 # one launch
key BSpace; key BSpace; key BSpace
key 2; wait_for "Kernels:"                    # kernels of all steps
key Enter; wait_for "Launches:"
key s; key s; key I
key p; wait_for "Input Dims"; key p             # shapes of one kernel in all steps
key F; key c o p y _ Enter; wait_for "Kind" # all events of the trace by name
key BSpace
key 5; wait_for "Ops:"                        # CPU ops
key s; key Enter; key Enter
key 1; key Enter; key 6; sleep 0.5           # timeline of a step
key -; key -; key z; key +; key +; key .; key .; key ,; key '>'; key '<'; key j; key k
key Right; key Left; key o; key o
key Enter
key 1; key g; key 7; wait_for "Findings:"     # the findings of the real steps
key j; key Enter; key BSpace; key k; key Enter # a drill and back (the first finding's evidence)
key BSpace; key 1; key j; key 7; wait_for "findings of step" # of one step
key 1; key q
sleep 0.3

python3 - "$LOG" <<'PY'
import collections, statistics, sys
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) >= 2:
        by[parts[0]].append(float(parts[1]))
allv = [v for vs in by.values() for v in vs]
if not allv:
    sys.exit("tui_latency: no timings logged")
print("%-16s %5s %9s %9s" % ("request", "keys", "median", "max"))
for req, vs in sorted(by.items(), key=lambda kv: -max(kv[1])):
    print("%-16s %5d %6.2f ms %6.2f ms" % (req, len(vs), statistics.median(vs), max(vs)))
print("all %d keys: max %.2f ms (target < 50 ms)" % (len(allv), max(allv)))
PY
"$TIX" info "$TIXFILE" | sed -n 's/^events: */trace: /p'

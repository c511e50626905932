#!/bin/sh
# Captures a screen of each view on a generated decode trace, for the
# screens in docs/TUI.md.  usage: capture_docs.sh TIX GEN_TRACE.py OUTDIR
# Writes OUTDIR/<view>.txt (100x24, UTF-8).
set -u
TIX=$1 GEN=$2 OUT=$3
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
mkdir -p "$OUT" && cd "$OUT" || exit 1
[ -f glm.json.gz ] || python3 "$GEN" -o glm.json.gz --steps 4 -q || exit 1
T="tmux -L tix-docs-$$ -f /dev/null"
trap '$T kill-server 2>/dev/null' EXIT
$T new-session -d -s d -x 100 -y 24 -c "$OUT" "env LANG=C.UTF-8 TZ=UTC $TIX glm.json.gz; sleep 600"
wait_for() {
	n=300
	while [ $n -gt 0 ] && ! $T capture-pane -p -t d | grep -Fq -- "$1"; do sleep 0.1; n=$((n - 1)); done
}
cap() { wait_for "$2"; $T capture-pane -p -t d | sed 's/[ ]*$//' >"$1.txt"; }
keys() { $T send-keys -t d "$@"; }
cap steps "4 steps"
keys Down Enter; cap kernels "Instances"
keys Enter; cap launches "Launched by"
keys Enter; cap detail "launched by"
keys Enter; wait_for "(Enter: detail)"
keys + + + + +; sleep 0.3; cap timeline-zoom "(Enter: detail)"
keys 5; cap ops "GPU time"
keys 6; cap timeline "(Enter: detail)"
keys "?"; cap help "Action"
keys q q

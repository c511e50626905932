#!/bin/sh
# Golden screens: runs the real tix in tmux on generated traces, plays the
# scripted keys of each scenario (tests/tui/golden/*.keys) and compares every
# screen it saves with tests/tui/golden/NAME.txt, printing the diff.
#
# usage: golden.sh TIX GEN_TRACE.py WORKDIR [--update]
#   --update   write the screens as the new golden files (after a deliberate
#              change; review them with git diff).  The documented command:
#              cmake --build build --target tui_golden_update
# The screens in docs/TUI.md are these files (tests/tui/docs_screens.sh
# checks them and splices them in with --update).
#
# A scenario is shell: `session W H TRACE [ENV...]` starts tix, `keys` and
# `text` type, `snap NAME TEXT` waits until the screen shows TEXT and holds
# still, then saves or compares it.  Waits are for screen text, never for
# fixed times.  Exit 0 pass, 1 fail, 77 skip (tmux missing).
set -u
TIX=$1 GEN=$2 WORK=$3 MODE=${4:-check}
HERE=$(cd "$(dirname "$0")" && pwd)
GOLD=$HERE/golden
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
[ -x "$TIX" ] || { echo "FAIL: no tix binary at $TIX"; exit 1; }
mkdir -p "$WORK" && cd "$WORK" || exit 1
# the traces the scenarios name, generated with fixed seeds (deterministic)
[ -f glm.json.gz ] || python3 "$GEN" -o glm.json.gz --steps 4 -q || exit 1
[ -f sgl.json.gz ] || python3 "$GEN" -o sgl.json.gz --marker sglang --steps 14 --layers 6 -q || exit 1
[ -f small.json.gz ] || python3 "$GEN" -o small.json.gz --steps 4 --layers 6 -q || exit 1
# the bundled sample (python frames, SGLang steps): what make demo opens
[ -f glm5_decode.json.gz ] || cp "$HERE/../../samples/glm5_decode.json.gz" . || exit 1
# and the same after the gather-then-cast fix (the generator wrote the sample)
[ -f glm5_fixed.json.gz ] || python3 "$GEN" -o glm5_fixed.json.gz --marker sglang --steps 6 --python-frames \
	--fixed -q || exit 1
[ -f glmfix.json.gz ] || python3 "$GEN" -o glmfix.json.gz --steps 4 --fixed -q || exit 1
[ -f tp8/tp8-rank7.json ] || { mkdir -p tp8 && python3 "$GEN" -o tp8/tp8.json --ranks 8 --slow-rank 5 \
	--steps 2 --layers 3 -q; } || exit 1

T="tmux -L tix-golden-$$ -f /dev/null"
trap '$T kill-server 2>/dev/null' EXIT INT TERM
FAILS=0 SNAPS=0

screen() { $T capture-pane -p -t g | sed 's/[ ]*$//'; }
keys() { $T send-keys -t g "$@"; }
text() { $T send-keys -t g -l "$1"; }

session() {
	w=$1 h=$2 tr=$3
	shift 3
	$T kill-session -t g 2>/dev/null
	rm -f ./*.tix ./tp8/*.tix
	$T new-session -d -s g -x "$w" -y "$h" -c "$WORK" \
		"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC HOME=$WORK $* $TIX $tr; sleep 600"
	# the server outlives a killed session: killing the last one otherwise
	# ends the server, and the next new-session racing that exit fails with
	# "server exited unexpectedly" (CI saw it once)
	$T set -g exit-empty off
}

# snap NAME TEXT: the screen once it shows TEXT and two captures agree (at
# most 90 s: a first open indexes the traces, slow under ASan on a busy machine)
snap() {
	name=$1 want=$2 n=900 prev=
	while [ $n -gt 0 ]; do
		cur=$(screen)
		case $cur in *"$want"*) [ "$cur" = "$prev" ] && break ;; esac
		prev=$cur
		sleep 0.1
		n=$((n - 1))
	done
	SNAPS=$((SNAPS + 1))
	if [ $n -eq 0 ]; then
		echo "FAIL: $name: the screen never showed '$want':"
		screen
		FAILS=$((FAILS + 1))
		return
	fi
	if [ "$MODE" = --update ]; then
		printf '%s\n' "$cur" >"$GOLD/$name.txt"
	elif ! printf '%s\n' "$cur" | diff -u "$GOLD/$name.txt" - >"$name.diff"; then
		echo "FAIL: screen $name differs from tests/tui/golden/$name.txt:"
		cat "$name.diff"
		FAILS=$((FAILS + 1))
	fi
}

for sc in "$GOLD"/*.keys; do
	. "$sc"
done
if [ "$FAILS" -ne 0 ]; then
	echo "tui_golden: $FAILS of $SNAPS screens differ.  If the change is meant, refresh them:"
	echo "  cmake --build build --target tui_golden_update   (then review git diff tests/tui/golden)"
	exit 1
fi
echo "tui_golden: $SNAPS screens ${MODE#--}"
[ "$MODE" = --update ] && echo "(written to $GOLD; review with git diff)"
exit 0

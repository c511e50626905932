#!/bin/sh
# Every row of the keymap (as tui_print_keys writes it) must appear, as is,
# in docs/TUI.md.  Regenerate the table with:  build/tests/tui/tui_keys
set -u
KEYS=$1 DOC=$2
out=$("$KEYS") || { echo "FAIL: $KEYS did not run"; exit 1; }
missing=0
printf '%s\n' "$out" | while IFS= read -r line; do
	if ! grep -Fxq -- "$line" "$DOC"; then
		echo "docs/TUI.md lacks: $line"
		exit 1
	fi
done || missing=1
if [ "$missing" -ne 0 ]; then
	echo "FAIL: docs/TUI.md does not list every key; regenerate its table with $KEYS"
	exit 1
fi
echo "ok: $(printf '%s\n' "$out" | wc -l) key rows in $DOC"

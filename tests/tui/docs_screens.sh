#!/bin/sh
# The screens in docs/TUI.md are golden screens: a code block right after a
# line `<!-- screen: NAME -->` must be tests/tui/golden/NAME.txt verbatim.
# usage: docs_screens.sh TUI.md GOLDEN_DIR [--update]
#   --update  splices the golden files into TUI.md (golden.sh --update first,
#             or: cmake --build build --target tui_golden_update, which runs both)
set -u
DOC=$1 GOLD=$2 MODE=${3:-check}
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
# awk writes the document with each marked block replaced by its golden file,
# and names on stderr the markers whose file is missing
awk -v gold="$GOLD" '
	skip && /^```/ { skip = 0; next }
	skip { next }
	{ print }
	/^<!-- screen: [a-z0-9-]+ -->$/ {
		name = $3; file = gold "/" name ".txt"
		if ((getline first < file) <= 0) { print "no golden screen " file > "/dev/stderr"; bad = 1; next }
		print "```"; print first
		while ((getline line < file) > 0) print line
		close(file); print "```"
		n++
		if ((getline nxt) > 0 && nxt ~ /^```/) skip = 1; else if (nxt != "") print nxt
	}
	END { if (bad) exit 2; if (!n) { print "no screen markers" > "/dev/stderr"; exit 3 } }
' "$DOC" >"$out" || { echo "FAIL: docs/TUI.md screens: see above"; exit 1; }
if [ "$MODE" = --update ]; then
	cp "$out" "$DOC" && echo "docs/TUI.md: screens spliced from $GOLD"
	exit 0
fi
if ! diff -u "$DOC" "$out"; then
	echo "FAIL: a screen in docs/TUI.md is not its golden file; refresh with"
	echo "  cmake --build build --target tui_golden_update"
	exit 1
fi
echo "ok: $(grep -c '^<!-- screen: ' "$DOC") screens in $DOC match tests/tui/golden"

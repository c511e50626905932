#!/bin/sh
# tests/capture/test_runpath.sh: the RUNPATH (or RPATH) of libtixcap.so,
# which libcuda loads into every traced program, and of tix and tixj-dump
# has no empty and no relative element.  An empty one (a leading, trailing
# or doubled ':') makes the loader look for libcupti.so.13 in the traced
# program's working directory: whoever can write there runs code in it.
# Only absolute folders and $ORIGIN-relative ones are allowed.
# Owner: cupti_capture.  Usage: test_runpath.sh FILE...
set -u
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v readelf >/dev/null || { echo "FAIL: readelf (binutils) is not installed"; exit 1; }
for f in "$@"; do
	dyn=$(readelf -d "$f" 2>&1) || { fail "$f: readelf: $dyn"; continue; }
	paths=$(echo "$dyn" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
	[ -n "$(echo "$dyn" | grep -E '\((RUNPATH|RPATH)\)')" ] && [ -z "$paths" ] &&
		fail "$f: an empty RUNPATH"
	for p in $paths; do
		case "$p" in
		:* | *: | *::*) fail "$f: RUNPATH '$p' has an empty element" ;;
		esac
		old_ifs=$IFS; IFS=:
		for e in $p; do
			case "$e" in
			/* | '$ORIGIN' | '$ORIGIN/'*) ;;
			*) fail "$f: RUNPATH element '$e' of '$p' is relative" ;;
			esac
		done
		IFS=$old_ifs
		echo "$f: RUNPATH $p"
	done
done
[ $fails -eq 0 ] && { echo "test_runpath: ok"; exit 0; }
echo "test_runpath: $fails failures"
exit 1

#!/bin/sh
# tests/capture/test_cupti_gate.sh: a CUDA 12 toolkit builds tix without
# capture, saying why, instead of failing to compile cupti_capture's CUDA
# 13-only names (cupti_capture/cupti_gate.cmake).  No CUDA 12 toolkit is
# installed here, so TIX_CUDA_ROOT points at a stand-in: cupti.h, a
# cupti_version.h of CUDA 12.8 (CUPTI_API_VERSION 120800) and a libcupti.so;
# the real configure must turn capture off and name the version.  Then the
# same with a 13.0 stand-in, which it must accept.  Owner: cupti_capture.
# Usage: test_cupti_gate.sh CMAKE SRCDIR SCRATCH
set -u
CMAKE=$1 SRC=$2 T=$3/gate.$$
rm -rf "$T"; mkdir -p "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

standin() { # DIR VERSION: a toolkit folder with CUPTI of that API version
	mkdir -p "$1/include" "$1/lib64"
	: >"$1/include/cupti.h"
	printf '#define CUPTI_API_VERSION %s\n' "$2" >"$1/include/cupti_version.h"
	: >"$1/lib64/libcupti.so"
}
standin "$T/cuda-12.8" 120800
"$CMAKE" -S "$SRC" -B "$T/b12" -DTIX_CUDA_ROOT="$T/cuda-12.8" >"$T/cfg12" 2>&1 ||
	fail "configure with CUPTI 12.8 failed: $(tail -5 "$T/cfg12")"
why="the CUPTI at $T/cuda-12.8/include has API version 120800 (CUDA 12), and capture needs the CUDA 13 CUPTI (130000 or later)"
grep -qF "tix capture will be unavailable: $why" "$T/cfg12" ||
	fail "no reason given: $(grep -i cupti "$T/cfg12")"
grep -q "capture enabled" "$T/cfg12" && fail "capture enabled with CUPTI 12.8"
grep -q "dropping a preprocessor definition" "$T/cfg12" && fail "CMake mangled the reason: $(cat "$T/cfg12")"
"$CMAKE" --build "$T/b12" --target help 2>/dev/null | grep -q "tixcap" &&
	fail "the CUPTI 12.8 build still has the injection library's targets"
# the launcher compiles, and carries the reason `tix capture` prints
make -s -C "$T/b12/cupti_capture" launcher.c.o >"$T/make12" 2>&1 ||
	fail "the launcher of the CUPTI 12.8 build does not compile: $(tail -5 "$T/make12")"
obj=$(find "$T/b12/cupti_capture" -name 'launcher.c.o' | head -1)
[ -n "$obj" ] && grep -qF "$why" "$obj" || fail "tix capture is not told why (not in $obj)"

# Reconfiguring the same tree with a CUDA 13 root looks again (nothing
# cached from the 12.8 one) and turns capture on.
standin "$T/cuda-13.0" 130001
"$CMAKE" -S "$SRC" -B "$T/b12" -DTIX_CUDA_ROOT="$T/cuda-13.0" >"$T/cfg13" 2>&1 ||
	fail "configure with CUPTI 13.0 failed: $(tail -5 "$T/cfg13")"
grep -q "CUPTI 130001: $T/cuda-13.0/lib64/libcupti.so (capture enabled)" "$T/cfg13" ||
	fail "CUPTI 13.0 not taken: $(grep -i cupti "$T/cfg13")"

[ $fails -eq 0 ] && { echo "test_cupti_gate: ok"; rm -rf "$T"; exit 0; }
echo "test_cupti_gate: $fails failures (scratch kept in $T)"
exit 1

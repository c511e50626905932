#!/bin/sh
# tests/capture/test_dump.sh: tixj-dump prints a journal's rows (the graph
# node with its frames and launch call, the cast with its grid), and on a
# torn journal prints the whole prefix and exits 2.  Owner: cupti_capture.
# Usage: test_dump.sh DUMP EMITTER SCRATCH
set -u
DUMP=$1 EMITTER=$2 T=$3/dump.$$
rm -rf "$T"; mkdir -p "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
J=$("$EMITTER" --emit "$T") || fail "emit"
"$DUMP" --rows 5 "$J" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "status $rc: $(cat "$T/err")"
grep -q "^journal .*: [0-9]* bytes, [0-9]* whole chunks, closed$" "$T/out" || fail "summary line"
grep -q '^command: "python3 -m sglang.launch_server"$' "$T/out" || fail "command line"
grep -q 'kernel #0: .* corr 77 grid \[557496,1,1\] block \[128,1,1\] regs 14 ' "$T/out" || fail "kernel row"
grep -q 'api #1: runtime cbid 505 corr 77 .* name "__cudaLaunchKernel_v13000"' "$T/out" || fail "api row"
grep -q 'graph_node #0: created node 4294967297 .* api "__cudaLaunchKernel_v13000" frames "step\[DECODE bs=1\] > layer.00 > aten::to > aten::_to_copy > aten::copy_"$' "$T/out" || fail "graph node row"
grep -q 'graph_node #1: cloned node 4294967298 from 4294967297 ' "$T/out" || fail "clone row"
grep -q '^rows: kernels 3 copies 2 apis 5 markers 10 ' "$T/out" || fail "row counts: $(grep '^rows' "$T/out")"
size=$(wc -c <"$J")
head -c $((size - 20)) "$J" >"$T/torn.tixj"
"$DUMP" "$T/torn.tixj" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "torn journal: status $rc"
grep -q "DAMAGED" "$T/out" && grep -q "^damaged at byte " "$T/out" || fail "torn journal not said: $(head -3 "$T/out")"
"$DUMP" /nonexistent.tixj 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "tixj-dump: /nonexistent.tixj: cannot open" "$T/err" || fail "missing file: $rc $(cat "$T/err")"
[ $fails -eq 0 ] && { echo "test_dump: ok"; rm -rf "$T"; exit 0; }
echo "test_dump: $fails failures (scratch kept in $T)"
exit 1

#!/bin/sh
# tests/capture/test_gpu_scripts.sh: the GPU checks cannot run in CI, but
# everything up to the GPU can.  Owner: cupti_capture.
#   1. The judges (tests/gpu/check.py, check_kill.py) on captures of the
#      fake libcupti's replay of e2e_decode.cu: they pass, and fail when the
#      capture and the program disagree.
#   2. run_gpu_checks.sh from the bundle (scripts/gpu_bundle.sh), with a
#      stand-in nvidia-smi: each preflight stop (no driver, a driver too
#      old, no GPU) in one line and status 3; with a driver that answers
#      and a stand-in libcuda.so.1, the bundle's ldd checked and printed,
#      then the real test program run alone fails at its first CUDA call,
#      which the script names a host problem (status 5), with its files in
#      $OUT.
#   3. The rehearsal: the whole run, with the stand-in program played by
#      the fake libcupti in place of e2e_decode and the GPU: CORRECT: PASS,
#      a summary of at most 30 lines at the end, PERF reported, the bounds
#      measured, and what $OUT gets back (at most 8 files).
# Usage: test_gpu_scripts.sh FAKE_TEST LIBTIXCAP FAKE_LIBDIR TIX DUMP SCRATCH BUNDLE STANDIN STANDIN_CUDA
#   BUNDLE may be empty (no nvcc here): 2 and 3 are then skipped.
set -u
FAKE=$1 LIB=$2 FAKEDIR=$3 TIX=$4 DUMP=$5 T=$6/gpuscripts.$$ BUNDLE=$7 STANDIN=$8 SCUDA=$9
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=$ROOT/tests/gpu
rm -rf "$T"; mkdir -p "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- 1. the judges -------------------------------------------------------------
capture() { # SCENARIO -> sets J (journal), TID, X (its index)
	line=$(TIXFAKE_KEEP=1 LD_LIBRARY_PATH=$FAKEDIR "$FAKE" "$LIB" "$T" "$1" | grep '^journal ')
	J=$(echo "$line" | cut -d' ' -f2) TID=$(echo "$line" | cut -d' ' -f4)
	X=$T/$1.tix
	"$TIX" index "$J" -o "$X" >/dev/null 2>"$T/$1.err" || fail "$1: tix index: $(cat "$T/$1.err")"
}
run_json() { # MODE REGS TID -> the program's closing line
	echo "{\"mode\":\"$1\",\"steps\":3,\"layers\":78,\"tid\":$3,\"pid\":1,\"numRegs\":$2,\"staticSmem\":0,\"blocks\":557496,\"tiny\":0,\"per_layer\":1,\"mean_step_ms\":16.0,\"t_start_ns\":0,\"t_end_ns\":0}"
}

for mode in eager graph; do
	capture $mode
	if [ $mode = graph ]; then
		# 78 captured nodes and their 78 copies; the copies instantiation
		# also reports as created are not journaled as captures
		"$DUMP" "$J" | grep -q "^rows: .* graph_nodes 156 graph_events 1 " ||
			fail "graph node rows: $("$DUMP" "$J" | grep '^rows:')"
	fi
	run_json $mode 14 "$TID" >"$T/$mode.run"
	out=$(python3 "$G/check.py" $mode "$TIX" "$X" "$T/$mode.run" 2>&1) || fail "check.py $mode: $out"
	case "$mode:$out" in
	eager:"234 casts in 3 steps") ;;
	graph:"234 casts in 3 steps, 78 distinct exact capture chains") ;;
	*) fail "check.py $mode said: $out" ;;
	esac
	# the judge must be able to say no: a register count the program did not report
	run_json $mode 15 "$TID" >"$T/$mode.bad.run"
	out=$(python3 "$G/check.py" $mode "$TIX" "$X" "$T/$mode.bad.run" 2>&1) && fail "check.py $mode passed a wrong numRegs"
	echo "$out" | grep -q "registers 14 != numRegs 15" || fail "check.py $mode: $out"
done
out=$(python3 "$G/check.py" graph "$TIX" "$T/eager.tix" "$T/eager.run" 2>&1) && fail "check.py graph passed an eager capture"

# check_kill.py: the sigkill scenario's journal, with clocks around its bound
capture sigkill
"$DUMP" "$J" >"$T/kill.dump" 2>&1
last=$(sed -n 's/^last write: realtime //p' "$T/kill.dump")
[ -n "$last" ] && [ "$last" -gt 0 ] || fail "no last write in the dump: $(cat "$T/kill.dump")"
grep -q "^buffers: [0-9]*, with kernels [1-9][0-9]* (with API or NVTX records too: 0), kernel buffer span max [0-9]* ns" "$T/kill.dump" ||
	fail "the dump does not say how CUPTI filled its buffers: $(grep '^buffers' "$T/kill.dump")"
progress() { # N_STEPS: steps 1 ms apart, the last ending 2 s before the last write
	i=0
	while [ $i -lt $1 ]; do
		echo "{\"step\":$i,\"pid\":1,\"t_end_ns\":$((last - 2000000000 - ($1 - 1 - i) * 1000000))}"
		i=$((i + 1))
	done
}
# the fake's kernel buffers span tens of ms: every step that ended 2 s
# before the last write is past the bound (span + a 250 ms flush)
progress 3 >"$T/p3"
out=$(python3 "$G/check_kill.py" "$TIX" "$T/sigkill.tix" "$T/kill.dump" "$T/p3" $((last + 100000000)) 250 1 2>&1) ||
	fail "check_kill.py: $out"
echo "$out" | grep -q "^234 casts salvaged (>= 234: 3 steps ended .*loss bound measured ([0-9]* kernel buffers, 0 shared with API/NVTX records" ||
	fail "check_kill.py does not say it measured the bound: $out"
progress 4 >"$T/p4" # a step that ended before the bound is missing
out=$(python3 "$G/check_kill.py" "$TIX" "$T/sigkill.tix" "$T/kill.dump" "$T/p4" $((last + 100000000)) 250 1 2>&1) &&
	fail "check_kill.py passed a lost step: $out"
out=$(python3 "$G/check_kill.py" "$TIX" "$T/sigkill.tix" "$T/kill.dump" "$T/p3" $((last + 2000000000)) 250 1 2>&1) &&
	fail "check_kill.py passed a journal last written 2 s before the kill: $out"

if [ -z "$BUNDLE" ]; then
	echo "test_gpu_scripts: no bundle (no nvcc here): the dry run and the rehearsal are skipped"
	[ $fails -eq 0 ] && { echo "test_gpu_scripts: ok"; rm -rf "$T"; exit 0; }
	exit 1
fi

# ---- 2. the dry run: every branch up to the first CUDA call --------------------------
smi() { # the stand-in nvidia-smi: STATUS then its output
	mkdir -p "$T/bin"
	printf "%s" "$2" >"$T/bin/nvidia-smi.out"
	[ -n "$2" ] && echo >>"$T/bin/nvidia-smi.out"
	printf '#!/bin/sh\ncat "%s"\nexit %s\n' "$T/bin/nvidia-smi.out" "$1" >"$T/bin/nvidia-smi"
	chmod +x "$T/bin/nvidia-smi"
}
dry() { # WANT_STATUS NAME: runs the script from the bundle, OUT in $T/NAME.out
	rm -rf "$T/$2.out" "$T/$2.w"
	OUT=$T/$2.out PATH=$T/bin:$PATH LD_LIBRARY_PATH=$SCUDA sh "$BUNDLE/gpu/run_gpu_checks.sh" "$T/$2.w" \
		>"$T/$2.log" 2>&1
	rc=$?
	[ $rc -eq "$1" ] || fail "$2: status $rc, want $1: $(tail -5 "$T/$2.log")"
	[ "$(tail -n 30 "$T/$2.log" | grep -c '^==== tix capture GPU checks')" -eq 1 ] ||
		fail "$2: the summary is not in the last 30 lines: $(tail -n 30 "$T/$2.log")"
	[ -f "$T/$2.out/summary.txt" ] && [ -f "$T/$2.out/log.txt" ] || fail "$2: \$OUT lacks its files: $(ls "$T/$2.out")"
}
smi 9 "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
dry 3 nodriver
grep -q "^PREFLIGHT FAIL: no driver: nvidia-smi failed (status 9): NVIDIA-SMI has failed" "$T/nodriver.log" ||
	fail "no driver not said: $(cat "$T/nodriver.log")"
smi 0 "NVIDIA H200, 570.86.15, 9.0, 143771 MiB"
dry 3 olddriver
grep -q "^PREFLIGHT FAIL: driver 570.86.15 is too old: CUDA 13 and its CUPTI need 580 or newer" "$T/olddriver.log" ||
	fail "old driver not said: $(cat "$T/olddriver.log")"
smi 0 ""
dry 3 nogpu
grep -q "^PREFLIGHT FAIL: no GPU visible" "$T/nogpu.log" || fail "no GPU not said: $(cat "$T/nogpu.log")"
smi 0 "NVIDIA H200, 580.159.04, 9.0, 143771 MiB"
dry 5 host
for want in "^preflight: ok: NVIDIA H200, 580.159.04" "^bundle: .*tix GPU bundle" \
	"^bundle: libtixcap.so loads .*/lib/cupti/libcupti.so.13" \
	"^host: the test program fails without tix (status 2): e2e_decode: cudaMalloc" \
	"^CORRECT: NOT RUN (a host problem, not one of tix"; do
	grep -q "$want" "$T/host.log" || fail "host run: no '$want': $(cat "$T/host.log")"
done
tar -tzf "$T/host.out/details.tar.gz" 2>/dev/null | grep -q "ldd.txt" && tar -tzf "$T/host.out/details.tar.gz" | grep -q "host.err" ||
	fail "host run: details.tar.gz lacks ldd.txt or host.err: $(tar -tzf "$T/host.out/details.tar.gz" 2>&1)"
grep -q "libcupti.so.13 => $BUNDLE/lib/cupti/libcupti.so.13" "$T/host.out/log.txt" ||
	fail "host run: the carried libcupti is not first: $(grep libcupti "$T/host.out/log.txt")"

# ---- 3. the rehearsal: the whole run, the GPU played by the fake libcupti ----------------
TIXGPU_E2E=$STANDIN TIXGPU_CUPTI_DIR=$FAKEDIR dry 0 rehearsal
for want in "^PASS eager: 1560 casts in 20 steps" "^PASS graph: 1560 casts in 20 steps, 78 distinct exact capture chains" \
	"^PASS graph-window: 234 casts in 3 steps" "^PASS eager-nvtx: 1560 casts in 20 steps" \
	"^PASS sigkill: .* casts salvaged .*loss bound measured" \
	"^bounds: eager, 4 MiB: 1 of [0-9]* buffers held kernels, 0 of those API/NVTX records too, span max [0-9]* ms (median [0-9]*); sigkill, 1 MiB: [0-9]* of" \
	"^CORRECT: PASS$" "^PERF: eager ratio [0-9.]* (.* ms a step; target 1.02); graph ratio .*; launch-bound [-+][0-9.]* us a launch"; do
	grep -q "$want" "$T/rehearsal.log" || fail "rehearsal: no '$want': $(tail -n 30 "$T/rehearsal.log")"
done
n=$(ls "$T/rehearsal.out" | wc -l)
[ "$n" -le 8 ] && [ -f "$T/rehearsal.out/verdict.json" ] && [ -f "$T/rehearsal.out/details.tar.gz" ] ||
	fail "rehearsal: \$OUT holds $n files (at most 8 come back): $(ls "$T/rehearsal.out")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['correct']=='PASS' and d['checks']['sigkill']['result']=='PASS', d" \
	"$T/rehearsal.out/verdict.json" || fail "rehearsal: verdict.json"
tar -tzf "$T/rehearsal.out/details.tar.gz" | grep -q "eager/.*\.tixj$" ||
	fail "rehearsal: the journals of the captures are not in details.tar.gz"

[ $fails -eq 0 ] && { echo "test_gpu_scripts: ok"; rm -rf "$T"; exit 0; }
echo "test_gpu_scripts: $fails failures (scratch kept in $T)"
exit 1

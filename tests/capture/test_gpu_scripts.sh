#!/bin/sh
# tests/capture/test_gpu_scripts.sh: the GPU checks cannot run in CI, but
# their judges can.  Captures the fake libcupti's replay of e2e_decode.cu
# (eager and graph, through libtixcap.so), indexes them with tix, and runs
# tests/gpu/check.py on them as run_gpu_checks.sh would on a GPU: they must
# pass, and fail when the capture and the program disagree.  check_kill.py
# gets a killed capture and clocks on either side of its bound.  Then
# run_gpu_checks.sh itself, with a stand-in nvidia-smi that fails as on a
# host without a driver: it must stop at the preflight, say what is missing,
# exit 3 and build nothing.  Owner: cupti_capture.
# Usage: test_gpu_scripts.sh FAKE_TEST LIBTIXCAP FAKE_LIBDIR TIX DUMP SCRATCH
set -u
FAKE=$1 LIB=$2 FAKEDIR=$3 TIX=$4 DUMP=$5 T=$6/gpuscripts.$$
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=$ROOT/tests/gpu
rm -rf "$T"; mkdir -p "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

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
progress() { # N_STEPS: steps 1 ms apart, the last ending 100 ms before the last write
	i=0
	while [ $i -lt $1 ]; do
		echo "{\"step\":$i,\"pid\":1,\"t_end_ns\":$((last - 100000000 - ($1 - 1 - i) * 1000000))}"
		i=$((i + 1))
	done
}
progress 3 >"$T/p3"
out=$(python3 "$G/check_kill.py" "$TIX" "$T/sigkill.tix" "$T/kill.dump" "$T/p3" $((last + 100000000)) 250 1 2>&1) ||
	fail "check_kill.py: $out"
progress 4 >"$T/p4" # a step that ended before the write is missing
out=$(python3 "$G/check_kill.py" "$TIX" "$T/sigkill.tix" "$T/kill.dump" "$T/p4" $((last + 100000000)) 250 1 2>&1) &&
	fail "check_kill.py passed a lost step: $out"
out=$(python3 "$G/check_kill.py" "$TIX" "$T/sigkill.tix" "$T/kill.dump" "$T/p3" $((last + 2000000000)) 250 1 2>&1) &&
	fail "check_kill.py passed a journal last written 2 s before the kill: $out"

# the whole script on a host without a driver: stops at the preflight
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn'"'"'t communicate with the NVIDIA driver."\nexit 9\n' >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
PATH=$T/bin:$PATH sh "$G/run_gpu_checks.sh" "$T/work" >"$T/pre.out" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "preflight: status $rc, want 3: $(cat "$T/pre.out")"
grep -q "^preflight: FAIL" "$T/pre.out" && grep -q "nvidia-smi failed (status 9)" "$T/pre.out" &&
	grep -q "^RESULT: PREFLIGHT FAIL$" "$T/pre.out" || fail "preflight said: $(cat "$T/pre.out")"
[ ! -e "$T/work/build" ] && [ ! -e "$T/work/e2e_decode" ] || fail "preflight failure built something"

[ $fails -eq 0 ] && { echo "test_gpu_scripts: ok"; rm -rf "$T"; exit 0; }
echo "test_gpu_scripts: $fails failures (scratch kept in $T)"
exit 1

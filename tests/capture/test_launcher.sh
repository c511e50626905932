#!/bin/sh
# tests/capture/test_launcher.sh: `tix capture` launcher with dummy commands:
# usage errors, environment, exit status, signal forwarding, "ran no CUDA",
# and a journal turned into a .tix that `tix show` reads (when TIX is given).
# Owner: cupti_capture.
# Usage: test_launcher.sh DRIVER EMITTER SCRATCH [TIX]
#   DRIVER   runs tixcap_main (launcher_driver)
#   EMITTER  `EMITTER --emit DIR` writes the story journal into DIR
set -u
DRIVER=$1 EMITTER=$2 T=$3/launcher.$$ TIX=${4:-}
rm -rf "$T"; mkdir -p "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# usage errors exit 1, --help 0
"$DRIVER" capture 2>"$T/err"; [ $? -eq 1 ] && grep -q "no command" "$T/err" || fail "no CMD"
"$DRIVER" capture --delay abc -- true 2>"$T/err"; [ $? -eq 1 ] && grep -q "wants seconds" "$T/err" || fail "bad --delay"
"$DRIVER" capture --bogus -- true 2>"$T/err"; [ $? -eq 1 ] || fail "unknown option"
"$DRIVER" capture --help >"$T/out"; [ $? -eq 0 ] && grep -q "cuda-profiler-api" "$T/out" || fail "--help"

# environment and exit status; no journal -> "ran no CUDA"
cat >"$T/env.sh" <<'SH'
{ echo "INJ=$CUDA_INJECTION64_PATH"; echo "NVTX=$NVTX_INJECTION64_PATH"
  echo "DIR=$TIX_CAPTURE_DIR"; echo "DELAY=${TIX_CAPTURE_DELAY_S:-}"
  echo "DUR=${TIX_CAPTURE_DURATION_S:-}"; echo "RANGE=${TIX_CAPTURE_NVTX:-}"
  echo "API=${TIX_CAPTURE_CUDA_PROFILER_API:-}"; echo "ARGS=$*"; } >"$OUTFILE"
exit 7
SH
OUTFILE="$T/env.txt" TIX_CAPTURE_DURATION_S=99 "$DRIVER" capture -o "$T/out1" --delay 2 \
	--nvtx 'step[DECODE*' -- sh "$T/env.sh" a 'b c' 2>"$T/err"
rc=$?
[ $rc -eq 7 ] || fail "exit status $rc, want 7"
grep -q "ran no CUDA" "$T/err" || fail "no 'ran no CUDA' line: $(cat "$T/err")"
inj=$(sed -n 's/^INJ=//p' "$T/env.txt")
case "$inj" in /*libtixcap.so) [ -f "$inj" ] || fail "CUDA_INJECTION64_PATH $inj missing" ;;
	*) fail "CUDA_INJECTION64_PATH='$inj'" ;; esac
nvtx=$(sed -n 's/^NVTX=//p' "$T/env.txt")
case "$nvtx" in /*libcupti.so*) [ -f "$nvtx" ] || fail "NVTX path $nvtx missing" ;;
	*) fail "NVTX_INJECTION64_PATH='$nvtx'" ;; esac
[ -n "$nvtx" ] && { readelf -d "$inj" 2>/dev/null | grep -q "libcupti.so" || fail "lib does not link libcupti"; }
grep -qx "DIR=$(cd "$T/out1" && pwd -P)" "$T/env.txt" || fail "TIX_CAPTURE_DIR: $(grep DIR= "$T/env.txt")"
grep -qx "DELAY=2" "$T/env.txt" || fail "delay"
grep -qx "DUR=" "$T/env.txt" || fail "stale TIX_CAPTURE_DURATION_S leaked"
grep -qx "RANGE=step\[DECODE\*" "$T/env.txt" || fail "nvtx range"
grep -qx "ARGS=a b c" "$T/env.txt" || fail "arguments"

# a command killed by a signal: 128 + N
"$DRIVER" capture -o "$T/out2" -- sh -c 'kill -TERM $$' 2>"$T/err"
rc=$?
[ $rc -eq 143 ] || fail "self-killed command: status $rc, want 143"
grep -q "signal 15" "$T/err" || fail "signal not named"
"$DRIVER" capture -o "$T/out2" -- /nonexistent/cmd 2>"$T/err"
rc=$?
[ $rc -eq 127 ] && grep -q "cannot run /nonexistent/cmd" "$T/err" || fail "missing CMD: $rc"

# SIGTERM and SIGHUP sent to the launcher reach CMD, whose status we return
for sig in TERM HUP; do
	rm -f "$T/ready" "$T/got"
	cat >"$T/trap.sh" <<SH
trap 'echo got $sig >"$T/got"; exit 3' $sig
echo ready >"$T/ready"
while :; do sleep 0.05; done
SH
	"$DRIVER" capture -o "$T/out3" -- sh "$T/trap.sh" 2>"$T/err" &
	lp=$!
	n=0; while [ ! -f "$T/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	kill -$sig $lp
	wait $lp
	rc=$?
	[ $rc -eq 3 ] || fail "SIG$sig: launcher status $rc, want 3"
	grep -q "got $sig" "$T/got" 2>/dev/null || fail "SIG$sig not forwarded"
done

# a journal appears: it becomes a .tix that tix reads
"$DRIVER" capture -o "$T/out4" -- sh -c "\"$EMITTER\" --emit \"\$TIX_CAPTURE_DIR\" >/dev/null" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "journal run: status $rc: $(cat "$T/err")"
grep -q "wrote .*\.tix" "$T/err" || fail "no .tix written: $(cat "$T/err")"
tixfile=$(ls "$T"/out4/*.tix 2>/dev/null | head -1)
if [ -n "$TIX" ] && [ ! -x "$TIX" ]; then
	echo "test_launcher: $TIX not built; skipping the tix show check"
elif [ -n "$TIX" ] && [ -n "$tixfile" ]; then
	"$TIX" show "$tixfile" --kernel unrolled --format json >"$T/show.json" 2>"$T/err" || fail "tix show: $(cat "$T/err")"
	python3 - "$T/show.json" <<'PY' || fail "tix show output: $(head -c 2000 "$T/show.json")"
import json, sys
d = json.load(open(sys.argv[1]))
l = [x for x in d["launches"] if x.get("grid") == [557496, 1, 1] and x["launch"]]
assert l, "no launch with grid 557496"
k = l[0]
assert k["block"] == [128, 1, 1], k["block"]
assert k["launch"] and k["launch"]["name"] == "cudaLaunchKernel", k["launch"]
names = [p["name"] for p in k["parents"]]
want = ["step[DECODE bs=1]", "layer.00", "aten::to", "aten::_to_copy", "aten::copy_"]
assert names[-len(want):] == want or names[:len(want)] == want, names
assert k.get("step_name") == "step[DECODE bs=1]", k.get("step_name")
g = [x for x in d["launches"] if x.get("graph_replay")]
assert g, "no graph replay"
assert g[0]["launch"] is None or g[0]["launch"]["name"] == "cudaGraphLaunch", g[0]
PY
fi

[ $fails -eq 0 ] && { echo "test_launcher: ok"; rm -rf "$T"; exit 0; }
echo "test_launcher: $fails failures (scratch kept in $T)"
exit 1

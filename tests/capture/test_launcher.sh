#!/bin/sh
# tests/capture/test_launcher.sh: `tix capture` launcher with dummy commands:
# usage errors, environment, exit status, signal forwarding, waiting for the
# processes CMD leaves behind, "nothing recorded" (and no folder left), and,
# with the real tix, a journal indexed through the CLI's own door where
# `tix JOURNAL` finds it.  Owner: cupti_capture.
# Usage: test_launcher.sh DRIVER EMITTER SCRATCH TIX
#   DRIVER   runs tixcap_main without an ingest door (launcher_driver)
#   EMITTER  `EMITTER --emit DIR` writes the story journal into DIR
set -u
DRIVER=$1 EMITTER=$2 T=$3/launcher.$$ TIX=$4
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
mkdir -p "$T/out1" # exists already: kept even though nothing is recorded
OUTFILE="$T/env.txt" TIX_CAPTURE_DURATION_S=99 "$DRIVER" capture -o "$T/out1" --delay 2 \
	--nvtx 'step[DECODE*' -- sh "$T/env.sh" a 'b c' 2>"$T/err"
rc=$?
[ $rc -eq 7 ] || fail "exit status $rc, want 7"
grep -q "nothing recorded: sh ran no CUDA, or no capture window opened" "$T/err" ||
	fail "no 'nothing recorded' line: $(cat "$T/err")"
[ -d "$T/out1" ] || fail "an -o folder that existed before was removed"
inj=$(sed -n 's/^INJ=//p' "$T/env.txt")
case "$inj" in /*libtixcap.so) [ -f "$inj" ] || fail "CUDA_INJECTION64_PATH $inj missing" ;;
	*) fail "CUDA_INJECTION64_PATH='$inj'" ;; esac
nvtx=$(sed -n 's/^NVTX=//p' "$T/env.txt")
# NVTX goes through libtixcap.so, which hands it to the libcupti in use
[ "$nvtx" = "$inj" ] || fail "NVTX_INJECTION64_PATH='$nvtx', want '$inj'"
readelf -d "$inj" 2>/dev/null | grep -q "libcupti.so" || fail "lib does not link libcupti"
nm -D --defined-only "$inj" 2>/dev/null | grep -q " InitializeInjectionNvtx2$" ||
	fail "lib does not export InitializeInjectionNvtx2"
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

# `tix capture -- true`: nothing recorded, nothing written, not even the
# default folder
mkdir -p "$T/cwd"
(cd "$T/cwd" && "$DRIVER" capture -- true) 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "capture -- true: status $rc"
grep -q "nothing recorded: true ran no CUDA$" "$T/err" || fail "capture -- true said: $(cat "$T/err")"
[ -z "$(ls -A "$T/cwd")" ] || fail "capture -- true left: $(ls -A "$T/cwd")"

# CMD exits at once; a process it started writes its journal later (a
# server's ranks): the launcher waits for it
"$DRIVER" capture -o "$T/out5" -- sh -c "( sleep 0.5; \"$EMITTER\" --emit \"\$TIX_CAPTURE_DIR\" >/dev/null ) & exit 0" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "orphan run: status $rc"
grep -q "wrote .*\.tixj" "$T/err" || fail "the orphan's journal was not waited for: $(cat "$T/err")"

# a journal appears: the real tix indexes it through its own door, where
# `tix JOURNAL` looks, so opening the journal later reuses that index
if [ ! -x "$TIX" ]; then
	fail "tix not built at '$TIX'"
else
	"$TIX" capture -o "$T/out4" -- sh -c "\"$EMITTER\" --emit \"\$TIX_CAPTURE_DIR\" >/dev/null" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] || fail "journal run: status $rc: $(cat "$T/err")"
	journal=$(ls "$T"/out4/*.tixj 2>/dev/null | head -1)
	[ -n "$journal" ] && [ -f "$journal.tix" ] || fail "no JOURNAL.tix: $(ls "$T/out4")"
	grep -q "wrote $journal.tix" "$T/err" || fail "index not named: $(cat "$T/err")"
	[ "$(ls "$T"/out4/*.tix | wc -l)" -eq 1 ] || fail "more than one index: $(ls "$T/out4")"
	inode=$(stat -c %i "$journal.tix" 2>/dev/null)
	"$TIX" show "$journal" --kernel unrolled --format json >"$T/show.json" 2>"$T/err" || fail "tix show: $(cat "$T/err")"
	[ "$(stat -c %i "$journal.tix" 2>/dev/null)" = "$inode" ] || fail "tix JOURNAL rebuilt the index the capture wrote"
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
# what captured it, from the journal's graph-node records, stored in the index
assert g[0]["capture_match"] == "exact", g[0]
assert [f["name"] for f in g[0]["captured_under"]] == want + ["cudaLaunchKernel"], g[0]["captured_under"]
assert g[0]["capture_source"].endswith(".tixj"), g[0]["capture_source"]
PY
fi

[ $fails -eq 0 ] && { echo "test_launcher: ok"; rm -rf "$T"; exit 0; }
echo "test_launcher: $fails failures (scratch kept in $T)"
exit 1

#!/bin/sh
# tests/capture/test_launcher.sh: `tix capture` with dummy commands: usage
# errors (its options are read from cli/help.c's table), environment, exit
# status, signal forwarding, the bounded wait for the processes CMD leaves
# behind, "nothing recorded" (and no folder left), and a journal indexed
# through the CLI's own door where `tix JOURNAL` finds it.
# Owner: cupti_capture.
# Usage: test_launcher.sh TIX EMITTER SCRATCH
#   EMITTER  `EMITTER --emit DIR` writes the story journal into DIR
set -u
TIX=$1 EMITTER=$2 T=$3/launcher.$$
rm -rf "$T"; mkdir -p "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# usage errors exit 1, --help 0
usage() { # WHAT PATTERN ARGS...: exit 1, one line on stderr matching PATTERN
	what=$1 pat=$2; shift 2
	"$TIX" capture "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err" ||
		fail "$what: status $rc, said: $(cat "$T/err")"
}
usage "no CMD" "no command to run"
usage "bad --delay" "^tix capture: --delay wants seconds (a number >= 0), got 'abc'$" --delay abc -- true
usage "bad --wait" "^tix capture: --wait wants seconds (a number >= 0, or inf), got '-1'$" --wait -1 -- true
usage "bad --flush-ms" "wants milliseconds" --flush-ms 5 -- true
usage "unknown option" "^tix capture: unknown option '--bogus' (tix capture --help lists them)$" --bogus -- true
usage "missing value" "^tix capture: --nvtx needs a value (RANGE)$" --nvtx
usage "value for a flag" "takes no value" --cuda-profiler-api=1 -- true
usage "bad regex" "invalid --step-marker regex" --step-marker '(' -- true
"$TIX" capture --help >"$T/out"; [ $? -eq 0 ] && grep -q "cuda-profiler-api" "$T/out" &&
	grep -q -- "--wait S" "$T/out" || fail "--help: $(cat "$T/out")"
# --help is capture's own only before CMD
"$TIX" capture -o "$T/outh" -- sh -c 'echo "$1" >"$0"' "$T/h.txt" --help 2>/dev/null
grep -qx -- "--help" "$T/h.txt" 2>/dev/null || fail "--help after -- was not CMD's"

# environment and exit status; no journal -> "ran no CUDA"
cat >"$T/env.sh" <<'SH'
{ echo "INJ=$CUDA_INJECTION64_PATH"; echo "NVTX=$NVTX_INJECTION64_PATH"
  echo "DIR=$TIX_CAPTURE_DIR"; echo "DELAY=${TIX_CAPTURE_DELAY_S:-}"
  echo "DUR=${TIX_CAPTURE_DURATION_S:-}"; echo "RANGE=${TIX_CAPTURE_NVTX:-}"
  echo "API=${TIX_CAPTURE_CUDA_PROFILER_API:-}"; echo "ARGS=$*"; } >"$OUTFILE"
exit 7
SH
mkdir -p "$T/out1" # exists already: kept even though nothing is recorded
OUTFILE="$T/env.txt" TIX_CAPTURE_DURATION_S=99 "$TIX" capture -o "$T/out1" --delay 2 \
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
"$TIX" capture -o "$T/out2" -- sh -c 'kill -TERM $$' 2>"$T/err"
rc=$?
[ $rc -eq 143 ] || fail "self-killed command: status $rc, want 143"
grep -q "signal 15" "$T/err" || fail "signal not named"
"$TIX" capture -o "$T/out2" -- /nonexistent/cmd 2>"$T/err"
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
	"$TIX" capture -o "$T/out3" -- sh "$T/trap.sh" 2>"$T/err" &
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
(cd "$T/cwd" && "$TIX" capture -- true) 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "capture -- true: status $rc"
grep -q "nothing recorded: true ran no CUDA$" "$T/err" || fail "capture -- true said: $(cat "$T/err")"
[ -z "$(ls -A "$T/cwd")" ] || fail "capture -- true left: $(ls -A "$T/cwd")"

# CMD exits at once; a process it started writes its journal later (a
# server's ranks): the launcher waits for it
"$TIX" capture -o "$T/out5" -- sh -c "( sleep 0.5; \"$EMITTER\" --emit \"\$TIX_CAPTURE_DIR\" >/dev/null ) & exit 0" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "orphan run: status $rc"
grep -q "wrote .*\.tixj" "$T/err" || fail "the orphan's journal was not waited for: $(cat "$T/err")"

# ... but not for ever: a process that outlives CMD by far (a daemon) is
# waited for --wait seconds, named, left running, and what was written is
# indexed.  (Before the deadline, this waited until a signal: the timeout
# below ends such a run, and the test fails.)
rm -f "$T/sleeper"
timeout -k 2 40 "$TIX" capture --wait 1 -o "$T/out6" -- sh -c \
	"\"$EMITTER\" --emit \"\$TIX_CAPTURE_DIR\" >/dev/null; (sleep 300 & echo \$! >\"$T/sleeper\"); exit 0" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "daemon run: status $rc (124: the launcher waited past its deadline): $(cat "$T/err")"
grep -q "^tix capture: 1 process that sh started still running after 1 s ([0-9]* (sleep)), left running; indexing what they wrote so far" "$T/err" ||
	fail "the process left running was not named: $(cat "$T/err")"
grep -q "wrote .*out6/.*\.tixj\.tix" "$T/err" || fail "the journal was not indexed after the wait: $(cat "$T/err")"
sleeper=$(cat "$T/sleeper" 2>/dev/null)
if [ -n "$sleeper" ]; then
	kill -0 "$sleeper" 2>/dev/null || fail "the process left running was killed"
	kill "$sleeper" 2>/dev/null
fi

# a journal appears: the real tix indexes it through its own door, where
# `tix JOURNAL` looks, so opening the journal later reuses that index
if true; then
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

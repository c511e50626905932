#!/bin/sh
# tests/gpu/run_gpu_checks.sh: every GPU check of `tix capture`, in one run
# (~3-8 minutes on an H200).  Owner: cupti_capture.  See docs/CAPTURE.md.
#
#   run_gpu_checks.sh [--compile-only] [WORKDIR]
#
# Builds tests/gpu/e2e_decode.cu (the story's decode loop) and tix (unless
# TIX=path/to/tix is given), then checks, printing PASS/FAIL for each:
#   eager     78 casts per step, grid 557496x1x1, block 128, registers ==
#             numRegs, each launched by cudaLaunchKernel under
#             step > layer.NN > aten::to > aten::_to_copy > aten::copy_
#   graph     78 replayed casts per step, labelled graph replays, launch is
#             cudaGraphLaunch or none, capture-time parents recorded
#   profiler  --cuda-profiler-api: only the steps between Start and Stop
#   nvtx      --nvtx 'step[DECODE bs=1]': every step's casts
#   sigkill   kill -9 mid-run: the journal is salvaged, >= 80% of the
#             kernels run before the last flush are there, none torn
#   overhead  mean step time with vs without capture (target <= 1.02)
# Exit 0 when all pass.  --compile-only only compiles the CUDA program (CI
# without a GPU does that).  Env: NVCC, TIX, STEPS (default 20).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPILE_ONLY=0
[ "${1:-}" = "--compile-only" ] && { COMPILE_ONLY=1; shift; }
W=${1:-$ROOT/build-gpu-check}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
STEPS=${STEPS:-20}
mkdir -p "$W"
T0=$(date +%s)

# sm_90 (H100/H200) and sm_120 (RTX PRO 6000) cubins, PTX for the rest.
"$NVCC" -O2 -std=c++17 -lineinfo \
	-gencode arch=compute_90,code=sm_90 -gencode arch=compute_120,code=sm_120 \
	-gencode arch=compute_90,code=compute_90 \
	-o "$W/e2e_decode" "$ROOT/tests/gpu/e2e_decode.cu" -ldl || { echo "FAIL compile"; exit 1; }
if [ $COMPILE_ONLY -eq 1 ]; then
	echo "compile-only: $W/e2e_decode built"
	exit 0
fi

if [ -z "${TIX:-}" ]; then
	cmake -S "$ROOT" -B "$W/build" -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log" 2>&1 &&
		cmake --build "$W/build" -j"$(nproc)" --target tix tixcap >>"$W/cmake.log" 2>&1 ||
		{ echo "FAIL build tix (see $W/cmake.log)"; tail -20 "$W/cmake.log"; exit 1; }
	TIX=$W/build/cli/tix
fi
command -v python3 >/dev/null 2>&1 || { echo "FAIL python3 is needed for the checks"; exit 1; }
nvidia-smi -L 2>/dev/null | head -8
"$TIX" --version 2>/dev/null

RESULTS=""
record() { RESULTS="$RESULTS$1 $2: $3
"; echo "$1 $2: $3"; }

# check.py MODE TIXFILE RUN_JSON [EXPECTED_STEPS]: verifies `tix show` JSON.
cat >"$W/check.py" <<'PY'
import json, re, subprocess, sys
mode, tixfile, runjson, tix = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
want_steps = int(sys.argv[5]) if len(sys.argv) > 5 else None
run = [json.loads(l) for l in open(runjson) if l.startswith("{")][-1]
steps = want_steps if want_steps is not None else run["steps"]
out = subprocess.run([tix, "show", tixfile, "--kernel", "unrolled_elementwise", "--limit", "0",
                      "--format", "json"], capture_output=True, text=True)
if out.returncode:
    sys.exit("tix show failed: " + out.stderr)
d = json.loads(out.stdout)
L = d["launches"]
errs = []
def err(m):
    if len(errs) < 10: errs.append(m)
if len(L) != 78 * steps:
    err("%d casts, want %d (78 x %d steps)" % (len(L), 78 * steps, steps))
per_step = {}
for k in L:
    per_step[k.get("step")] = per_step.get(k.get("step"), 0) + 1
    if k.get("grid") != [run["blocks"], 1, 1] or k["grid"][0] != 557496: err("grid %s" % k.get("grid"))
    if k.get("block") != [128, 1, 1]: err("block %s" % k.get("block"))
    if k.get("registers") != run["numRegs"]: err("registers %s != numRegs %s" % (k.get("registers"), run["numRegs"]))
    if not (0.05e6 <= k.get("dur_ns", 0) <= 5e6): err("duration %s ns" % k.get("dur_ns"))
    if k.get("step_name") != "step[DECODE bs=1]": err("step %s" % k.get("step_name"))
    names = [p["name"] for p in k.get("parents", [])]
    if mode == "graph":
        if not k.get("graph_replay"): err("not labelled graph replay")
        if k["launch"] and k["launch"]["name"] != "cudaGraphLaunch": err("graph launch %s" % k["launch"]["name"])
    else:
        if k.get("graph_replay"): err("eager kernel labelled graph replay")
        if not k["launch"] or k["launch"]["name"] != "cudaLaunchKernel":
            err("launch %s" % (k["launch"] and k["launch"]["name"])); continue
        if k["launch"]["tid"] != run["tid"]: err("launch tid %s != %s" % (k["launch"]["tid"], run["tid"]))
        tail = names[-5:]
        if len(tail) != 5 or tail[0] != "step[DECODE bs=1]" or not re.match(r"layer\.\d\d$", tail[1]) \
           or tail[2:] != ["aten::to", "aten::_to_copy", "aten::copy_"]:
            err("parents %s" % names)
bad = {s: n for s, n in per_step.items() if n != 78}
if bad: err("steps without 78 casts: %s" % bad)
if mode == "graph":
    raw = open(tixfile, "rb").read()
    if b"captured under" not in raw: err("no capture-time parents (graph node callbacks) recorded")
print("; ".join(errs) if errs else "%d casts in %d steps" % (len(L), len(per_step)))
sys.exit(1 if errs else 0)
PY

run_capture() { # NAME [tix capture options] -- e2e args
	name=$1; shift
	rm -rf "$W/$name"
	"$TIX" capture -o "$W/$name" "$@" >"$W/$name.run" 2>"$W/$name.err"
}
only_tix() { ls "$W/$1"/*.tix 2>/dev/null | head -1; }

check_mode() { # NAME EXPECTED_STEPS capture-args...
	name=$1 want=$2; shift 2
	if run_capture "$name" "$@" && [ -n "$(only_tix "$name")" ]; then
		msg=$(python3 "$W/check.py" "${name%%-*}" "$(only_tix "$name")" "$W/$name.run" "$TIX" $want 2>&1)
		[ $? -eq 0 ] && record PASS "$name" "$msg" || record FAIL "$name" "$msg"
	else
		record FAIL "$name" "capture failed: $(tail -3 "$W/$name.err" | tr '\n' ' ')"
	fi
}

E="$W/e2e_decode"
check_mode eager "" -- "$E" --mode eager --steps "$STEPS"
check_mode graph "" -- "$E" --mode graph --steps "$STEPS"
check_mode eager-profiler 3 --cuda-profiler-api -- "$E" --mode eager --steps "$STEPS" --profile 4:6
check_mode eager-nvtx "" --nvtx 'step[DECODE bs=1]' -- "$E" --mode eager --steps "$STEPS"

# SIGKILL: 2000 eager steps, kill -9 the program after ~5 s.
rm -rf "$W/kill"
"$TIX" capture -o "$W/kill" -- "$E" --mode eager --steps 2000 >"$W/kill.run" 2>"$W/kill.err" &
lp=$!
sleep 5
child=$(pgrep -P $lp 2>/dev/null | head -1)
[ -n "$child" ] || child=$(ps -o pid= --ppid $lp 2>/dev/null | head -1)
[ -n "$child" ] && kill -9 "$child"
wait $lp
rc=$?
tixk=$(only_tix kill)
if [ $rc -eq 137 ] && [ -n "$tixk" ]; then
	step_ms=$(python3 -c "import json;print([json.loads(l) for l in open('$W/eager.run') if l.startswith('{')][-1]['mean_step_ms'])")
	n=$("$TIX" show "$tixk" --kernel unrolled --limit 0 --format json | python3 -c "import json,sys;print(json.load(sys.stdin)['matched'])")
	first=$("$TIX" info "$tixk" 2>&1 | head -40 | tr '\n' ' ')
	# kernels that ran before the last flush (>= 0.5 s before the kill); the
	# first ~1 s of the run is CUDA start-up, hence the 80%
	want=$(python3 -c "print(int(78 * (5 - 0.5 - 1.0) * 1000 / $step_ms * 0.8))")
	if [ "$n" -ge "$want" ]; then
		record PASS sigkill "salvaged $n casts (>= $want) after kill -9"
	else
		record FAIL sigkill "salvaged $n casts, want >= $want; info: $first"
	fi
else
	record FAIL sigkill "launcher status $rc (want 137), tix: '$tixk': $(tail -3 "$W/kill.err" | tr '\n' ' ')"
fi

# Overhead: best of 3 mean step times, eager, with vs without capture.
best() { python3 -c "import json,sys;print(min([json.loads(l)['mean_step_ms'] for f in sys.argv[1:] for l in open(f) if l.startswith('{')]))" "$@"; }
for i in 1 2 3; do
	"$E" --mode eager --steps 50 >"$W/plain$i.run" 2>/dev/null
	run_capture "over$i" -- "$E" --mode eager --steps 50
	cp "$W/over$i.run" "$W/cap$i.run"
done
for i in 1 2 3; do
	"$E" --mode graph --steps 50 >"$W/gplain$i.run" 2>/dev/null
	run_capture "gover$i" -- "$E" --mode graph --steps 50
done
p=$(best "$W"/plain?.run) c=$(best "$W"/cap?.run)
gp=$(best "$W"/gplain?.run) gc=$(best "$W"/gover?.run)
ratio=$(python3 -c "print('%.4f' % ($c / $p))")
gratio=$(python3 -c "print('%.4f' % ($gc / $gp))")
if python3 -c "import sys; sys.exit(0 if $c / $p <= 1.02 else 1)"; then
	record PASS overhead "eager step $p ms -> $c ms captured, ratio $ratio (target <= 1.02); graph $gp -> $gc ms, ratio $gratio"
else
	record FAIL overhead "eager step $p ms -> $c ms captured, ratio $ratio (target <= 1.02); graph $gp -> $gc ms, ratio $gratio"
fi

echo
echo "==== tix capture GPU checks ($(($(date +%s) - T0)) s) ===="
printf "%s" "$RESULTS"
case "$RESULTS" in *FAIL*) echo "RESULT: FAIL"; exit 1 ;; esac
echo "RESULT: PASS"
exit 0

#!/bin/sh
# tests/gpu/run_gpu_checks.sh: every GPU check of `tix capture`, in one shot
# of at most 8 minutes, on a GPU host with no network.  Owner: cupti_capture.
# See docs/CAPTURE.md ("On a GPU") for what it checks and its last output.
#
#   run_gpu_checks.sh [--compile-only | --preflight-only] [WORKDIR]
#
# 1. Preflight: nvidia-smi answers, driver >= 580 (CUDA 13), the CUDA 13
#    toolkit with CUPTI and nvcc, libcuda.so.1, and what building tix needs
#    (cmake, cc, c++, pkg-config with simdjson, ncursesw, zlib), python3 and
#    timeout.  Everything missing is printed, then it stops (exit 3).
# 2. Builds tests/gpu/e2e_decode.cu (the story's decode loop) and tix, tixcap,
#    tixj-dump (unless TIX=path/to/tix is given).
# 3. Checks, each process under a deadline, each capture followed by a raw
#    dump of its journal (WORKDIR/NAME.dump); one summary line per check:
#      eager          78 casts per step, grid [557496,1,1], block 128,
#                     registers == numRegs, launched by cudaLaunchKernel on the
#                     program's thread under step > layer.NN > aten::to >
#                     aten::_to_copy > aten::copy_
#      graph          78 replayed casts per step, each "captured under"
#                     layer.NN > ... > cudaLaunchKernel, match exact: 78
#                     distinct chains and 78 distinct nodes, not one
#      graph-window   the same with --cuda-profiler-api around steps 4..6
#                     (the graph was captured before the window opened)
#      eager-nvtx     --nvtx 'step[DECODE bs=1]': every step's casts
#      sigkill        kill -9 mid-run: the journal was written up to the last
#                     flush before the kill (by its own clock rows), and the
#                     steps that ended before that, minus one activity
#                     buffer's worth, are all there, whole
#      overhead       GPU-bound decode loop, mean step time with and without
#                     capture: ratio <= 1.02 (graph mode reported)
#      overhead-launch a launch-bound loop (78 x 10 tiny kernels a step): cost
#                     per launch with capture, <= 2 us
# Exit: 0 all pass, 1 a check failed, 3 preflight failed.  --compile-only
# only compiles the CUDA program (CI without a GPU does that);
# --preflight-only stops after the preflight.
# Env: NVCC, CUDA_HOME (default /usr/local/cuda), TIX, STEPS (default 20).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MODE=all
case "${1:-}" in
--compile-only) MODE=compile; shift ;;
--preflight-only) MODE=preflight; shift ;;
esac
W=${1:-$ROOT/build-gpu-check}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-}
[ -n "$NVCC" ] || NVCC=$(command -v nvcc 2>/dev/null || echo "$CUDA/bin/nvcc")
STEPS=${STEPS:-20}
T0=$(date +%s)
BUDGET=480 # seconds for the whole run
mkdir -p "$W"

# A deadline on every process: SIGTERM at the limit, SIGKILL 5 s later.
dl() { # SECONDS CMD...
	t=$1; shift
	timeout -k 5 "$t" "$@"
}
elapsed() { echo $(($(date +%s) - T0)); }

compile_e2e() {
	dl 240 "$NVCC" -O2 -std=c++17 -lineinfo \
		-gencode arch=compute_90,code=sm_90 -gencode arch=compute_120,code=sm_120 \
		-gencode arch=compute_90,code=compute_90 \
		-o "$W/e2e_decode" "$ROOT/tests/gpu/e2e_decode.cu" -ldl
}

if [ $MODE = compile ]; then
	compile_e2e || { echo "FAIL compile"; exit 1; }
	echo "compile-only: $W/e2e_decode built"
	exit 0
fi

# ---- 1. preflight -----------------------------------------------------------
MISSING=""
missing() { MISSING="$MISSING
  - $*"; }
have() { command -v "$1" >/dev/null 2>&1; }
have timeout || { echo "preflight: FAIL: coreutils timeout is missing"; echo "RESULT: PREFLIGHT FAIL"; exit 3; }
GPU=""
if ! have nvidia-smi; then
	missing "nvidia-smi: not found (no NVIDIA driver installed?)"
else
	GPU=$(dl 20 nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		missing "nvidia-smi failed (status $rc): $(echo "$GPU" | head -1)"
		GPU=""
	else
		drv=$(echo "$GPU" | head -1 | awk -F', ' '{print $2}')
		major=${drv%%.*}
		case "$major" in
		'' | *[!0-9]*) missing "driver version unreadable: '$drv'" ;;
		*) [ "$major" -ge 580 ] || missing "driver $drv: CUDA 13 needs 580 or newer" ;;
		esac
	fi
fi
if [ -x "$NVCC" ] || have "$NVCC"; then
	"$NVCC" --version 2>/dev/null | grep -q "release 13\." || missing "nvcc is not CUDA 13: $("$NVCC" --version 2>&1 | tail -1)"
else
	missing "nvcc: not found (set NVCC or CUDA_HOME; looked at $NVCC)"
fi
[ -f "$CUDA/include/cupti.h" ] || missing "CUPTI headers: no $CUDA/include/cupti.h"
ls "$CUDA"/lib64/libcupti.so* >/dev/null 2>&1 || missing "CUPTI library: no $CUDA/lib64/libcupti.so*"
if ! { ldconfig -p 2>/dev/null | grep -q "libcuda\.so\.1 "; } &&
	! ls /usr/lib*/libcuda.so.1 /usr/lib/*-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
	missing "libcuda.so.1 (the driver's library) is not installed"
fi
have python3 || missing "python3 (the checks are python scripts)"
if [ -z "${TIX:-}" ]; then
	have cmake || missing "cmake (to build tix)"
	have cc || missing "a C compiler (cc)"
	have c++ || missing "a C++ compiler (c++)"
	if have pkg-config; then
		for m in simdjson ncursesw zlib; do
			pkg-config --exists $m || missing "development files of $m (pkg-config $m)"
		done
	else
		missing "pkg-config (tix's build finds simdjson and ncursesw with it)"
	fi
fi
if [ -n "$MISSING" ]; then
	echo "preflight: FAIL: the GPU checks cannot run here; missing or broken:$MISSING"
	echo "RESULT: PREFLIGHT FAIL"
	exit 3
fi
echo "preflight: ok: $(echo "$GPU" | head -1); $("$NVCC" --version | tail -1)"
[ $MODE = preflight ] && exit 0

# ---- 2. build -----------------------------------------------------------------
compile_e2e >"$W/nvcc.log" 2>&1 || { echo "FAIL compile e2e_decode.cu:"; tail -20 "$W/nvcc.log"; exit 1; }
if [ -z "${TIX:-}" ]; then
	dl 120 cmake -S "$ROOT" -B "$W/build" -DCMAKE_BUILD_TYPE=Release -DTIX_CUDA_ROOT="$CUDA" \
		>"$W/cmake.log" 2>&1 &&
		dl 300 cmake --build "$W/build" -j"$(nproc)" --target tix tixcap tixj-dump >>"$W/cmake.log" 2>&1 ||
		{ echo "FAIL build tix (see $W/cmake.log)"; tail -20 "$W/cmake.log"; exit 1; }
	TIX=$W/build/cli/tix
fi
DUMP=${DUMP:-$(dirname "$TIX")/../cupti_capture/tixj-dump}
E=$W/e2e_decode
echo "build: ok ($(elapsed) s): $("$TIX" --version)"

RESULTS=""
record() { # PASS|FAIL|SKIP NAME TEXT
	RESULTS="$RESULTS$1 $2: $3
"
	echo "$1 $2: $3"
}
out_of_time() { [ "$(elapsed)" -gt $((BUDGET - ${1:-30})) ]; }

# The python side of the checks is tests/gpu/{check,check_kill,overhead}.py
# (CI runs check.py and check_kill.py on captures made with the fake libcupti).
G=$ROOT/tests/gpu



# ---- 3. the checks ----------------------------------------------------------------
capture() { # NAME LIMIT [tix capture options] -- e2e args: capture, then dump the journal
	name=$1 lim=$2; shift 2
	rm -rf "$W/$name"
	dl "$lim" "$TIX" capture -o "$W/$name" "$@" >"$W/$name.run" 2>"$W/$name.err"
	rc=$?
	j=$(ls "$W/$name"/*.tixj 2>/dev/null | head -1)
	if [ -n "$j" ]; then
		dl 60 "$DUMP" --rows 5 "$j" >"$W/$name.dump" 2>&1
		echo "  $name journal: $(grep '^rows:' "$W/$name.dump")"
	fi
	return $rc
}
index_of() { ls "$W/$1"/*.tixj.tix 2>/dev/null | head -1; }

check_mode() { # NAME MODE WANT_STEPS capture-args...
	name=$1 mode=$2 want=$3; shift 3
	if out_of_time 60; then record SKIP "$name" "out of time ($(elapsed) s)"; return; fi
	if capture "$name" 120 "$@" && [ -n "$(index_of "$name")" ]; then
		msg=$(dl 180 python3 "$G/check.py" "$mode" "$TIX" "$(index_of "$name")" "$W/$name.run" $want 2>&1)
		[ $? -eq 0 ] && record PASS "$name" "$msg" || record FAIL "$name" "$msg"
	else
		record FAIL "$name" "capture failed: $(tail -3 "$W/$name.err" | tr '\n' ' ')"
	fi
}

check_mode eager eager "" -- "$E" --mode eager --steps "$STEPS"
check_mode graph graph "" -- "$E" --mode graph --steps "$STEPS"
check_mode graph-window graph 3 --cuda-profiler-api -- "$E" --mode graph --steps "$STEPS" --profile 4:6
check_mode eager-nvtx eager "" --nvtx 'step[DECODE bs=1]' -- "$E" --mode eager --steps "$STEPS"

# SIGKILL: a long eager run with 1 MiB activity buffers, killed after ~4 s.
if out_of_time 90; then
	record SKIP sigkill "out of time ($(elapsed) s)"
else
	rm -rf "$W/kill"
	TIX_CAPTURE_BUFFER_MB=1 dl 120 "$TIX" capture -o "$W/kill" --flush-ms 250 -- \
		"$E" --mode eager --steps 5000 --progress >"$W/kill.run" 2>"$W/kill.err" &
	lp=$!
	n=0
	while [ $n -lt 300 ] && kill -0 $lp 2>/dev/null &&
		[ "$(grep '^{"step"' "$W/kill.run" 2>/dev/null | wc -l)" -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 1
	child=$(grep -m1 '^{"step"' "$W/kill.run" 2>/dev/null | python3 -c "import json,sys; print(json.loads(sys.stdin.read())['pid'])" 2>/dev/null)
	kill_ns=$(date +%s%N)
	[ -n "$child" ] && kill -9 "$child"
	wait $lp
	rc=$?
	j=$(ls "$W/kill"/*.tixj 2>/dev/null | head -1)
	[ -n "$j" ] && dl 60 "$DUMP" --rows 3 "$j" >"$W/kill.dump" 2>&1
	[ -n "$j" ] && echo "  kill journal: $(grep '^rows:' "$W/kill.dump")"
	tixk=$(index_of kill)
	if [ -z "$child" ]; then
		record FAIL sigkill "the program never reported progress: $(tail -3 "$W/kill.err" | tr '\n' ' ')"
	elif [ $rc -ne 137 ] || [ -z "$tixk" ]; then
		record FAIL sigkill "launcher status $rc (want 137), index '$tixk': $(tail -3 "$W/kill.err" | tr '\n' ' ')"
	else
		msg=$(dl 120 python3 "$G/check_kill.py" "$TIX" "$tixk" "$W/kill.dump" "$W/kill.run" "$kill_ns" 250 1 2>&1)
		[ $? -eq 0 ] && record PASS sigkill "$msg" || record FAIL sigkill "$msg"
	fi
fi

# Overhead: best of 3 mean step times, with and without capture.
overhead_runs() { # TAG e2e-args...
	tag=$1; shift
	for i in 1 2 3; do
		dl 60 "$E" "$@" >"$W/$tag.plain$i.run" 2>/dev/null
		capture "$tag.cap$i" 60 -- "$E" "$@" >/dev/null
	done
}
if out_of_time 120; then
	record SKIP overhead "out of time ($(elapsed) s)"
else
	overhead_runs over --mode eager --steps 50
	overhead_runs gover --mode graph --steps 50
	msg="eager $(python3 "$G/overhead.py" decode "$W" over) (target <= 1.02)"
	ok=$?
	msg="$msg; graph $(python3 "$G/overhead.py" decode "$W" gover)"
	[ $ok -eq 0 ] && record PASS overhead "$msg" || record FAIL overhead "$msg"
fi
if out_of_time 60; then
	record SKIP overhead-launch "out of time ($(elapsed) s)"
else
	overhead_runs tiny --mode eager --steps 50 --tiny --per-layer 10
	msg=$(python3 "$G/overhead.py" launch "$W" tiny)
	[ $? -eq 0 ] && record PASS overhead-launch "$msg" || record FAIL overhead-launch "$msg"
fi

echo
echo "==== tix capture GPU checks ($(elapsed) s) ===="
echo "$GPU" | head -1
printf "%s" "$RESULTS"
case "$RESULTS" in *FAIL* | *SKIP*) echo "RESULT: FAIL"; exit 1 ;; esac
echo "RESULT: PASS"
exit 0

#!/bin/sh
# tests/gpu/run_gpu_checks.sh: every GPU check of `tix capture`, in one run
# of under 8 minutes, giving a verdict about tix.  Owner: cupti_capture.
# docs/CAPTURE.md ("On a GPU") says what it checks, how to run it and how
# to read it.
#
#   run_gpu_checks.sh [--bundle DIR] [--preflight-only] [WORKDIR]
#
# It runs from a bundle (scripts/gpu_bundle.sh: tix, libtixcap.so, the
# libcupti it was built with, tixj-dump and the test program, prebuilt):
# --bundle DIR, else the bundle this script sits in (DIR/gpu/), else it
# builds one into WORKDIR/bundle (that needs the CUDA 13 toolkit).
#
# 1. preflight: stops (status 3) only where nothing can work: no driver, a
#    driver older than CUDA 13's (580), no GPU visible; one line each.
# 2. the bundle: ldd of every program in it, printed; a library missing
#    stops it (status 4).
# 3. the host: the test program runs once without tix; if it fails, that
#    is a host problem and is named as one (status 5).
# 4. the checks, each process under a deadline, each capture's journal
#    dumped: eager, graph, graph-window, eager-nvtx, sigkill: CORRECT.
# 5. overhead, with and without capture: PERF, reported, never a failure.
# The last lines are a summary of at most 30 lines: CORRECT: PASS|FAIL
# (status 0|1), PERF, the bounds measured.  With $OUT set, everything a
# failed check needs lands there: summary.txt, log.txt, verdict.json and
# details.tar.gz (journals, dumps, stderr, ldd, the program's output).
# Env: STEPS (default 20), OUT, TIXGPU_BUDGET_S (default 420); for the
# rehearsal without a GPU (tests/capture/test_gpu_scripts.sh):
# TIXGPU_E2E (the program), TIXGPU_CUPTI_DIR (the libcupti to load).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
MODE=all BUNDLE=""
while [ $# -gt 0 ]; do
	case $1 in
	--bundle) BUNDLE=$2; shift 2 ;;
	--preflight-only) MODE=preflight; shift ;;
	-h | --help) sed -n '2,32p' "$0"; exit 0 ;;
	-*) echo "run_gpu_checks.sh: unknown option $1" >&2; exit 1 ;;
	*) break ;;
	esac
done
W=${1:-${TMPDIR:-/tmp}/tix-gpu-checks.$$}
STEPS=${STEPS:-20}
BUDGET=${TIXGPU_BUDGET_S:-420}
T0=$(date +%s)
mkdir -p "$W" || exit 2
[ -n "${OUT:-}" ] && mkdir -p "$OUT"
LOG=${OUT:+$OUT/log.txt}
LOG=${LOG:-$W/log.txt}
: >"$LOG"
say() { echo "$*"; echo "$*" >>"$LOG"; }
elapsed() { echo $(($(date +%s) - T0)); }
out_of_time() { [ "$(elapsed)" -gt $((BUDGET - ${1:-30})) ]; }
have() { command -v "$1" >/dev/null 2>&1; }
# A deadline on every process: SIGTERM at the limit, SIGKILL 5 s later.
dl() { t=$1; shift; timeout -k 5 "$t" "$@"; }

RESULTS="" NOTES="" PERF="" BOUNDS="" HOSTLINE="" GPU="" VERDICT=""
note() { # a line of the summary: why nothing could run
	NOTES="$NOTES$*
"
	say "$*"
}
record() { # PASS|FAIL|SKIP NAME TEXT
	RESULTS="$RESULTS$1 $2: $3
"
	say "$1 $2: $3"
}

# The summary (at most 30 lines), verdict.json and details.tar.gz; exit.
finish() { # STATUS VERDICT-LINE
	status=$1 VERDICT=$2
	{
		echo "==== tix capture GPU checks: $(elapsed) s ===="
		[ -n "$GPU" ] && echo "gpu: $GPU"
		[ -n "${B:-}" ] && [ -f "$B/MANIFEST" ] && head -1 "$B/MANIFEST"
		[ -n "$HOSTLINE" ] && echo "$HOSTLINE"
		printf "%s" "$NOTES" | cut -c1-300 | head -6
		printf "%s" "$RESULTS" | cut -c1-300 | head -12
		[ -n "$BOUNDS" ] && echo "bounds: $BOUNDS"
		echo "$VERDICT"
		[ -n "$PERF" ] && echo "PERF: $PERF"
		[ -n "${OUT:-}" ] && echo "files: $OUT/{summary.txt,log.txt,verdict.json,details.tar.gz}"
	} >"$W/summary.txt"
	echo >>"$LOG"
	cat "$W/summary.txt" >>"$LOG"
	echo
	cat "$W/summary.txt"
	if [ -n "${OUT:-}" ]; then
		cp "$W/summary.txt" "$OUT/summary.txt"
		python3 - "$W/summary.txt" "$OUT/verdict.json" "$status" <<'PY' 2>/dev/null
import json, sys
lines = open(sys.argv[1]).read().splitlines()
checks = {}
for l in lines:
    w = l.split(" ", 2)
    if len(w) == 3 and w[0] in ("PASS", "FAIL", "SKIP") and w[1].endswith(":"):
        checks[w[1][:-1]] = {"result": w[0], "text": w[2]}
pick = lambda p: next((l[len(p):].strip() for l in lines if l.startswith(p)), None)
json.dump({"status": int(sys.argv[3]), "correct": pick("CORRECT:"), "perf": pick("PERF:"),
           "bounds": pick("bounds:"), "gpu": pick("gpu:"), "host": pick("host:"),
           "checks": checks, "summary": lines}, open(sys.argv[2], "w"), indent=1)
PY
		# the small files: journals of the captures (not of the overhead
		# runs), dumps, stderr, the program's output, ldd, nvidia-smi; the
		# kill's journal only while the whole stays under what comes back
		# (16 MiB a file)
		for skip in '' './kill/*'; do
			(cd "$W" && find . -maxdepth 2 -type f \( -name '*.tixj' -o -name '*.dump' -o \
				-name '*.err' -o -name '*.run' -o -name '*.txt' -o -name '*.check' \) \
				! -path './over*' ! -path './gover*' ! -path './tiny*' ! -path './bundle/*' \
				! -path "${skip:-./.none}" -size -12M | tar -czf "$OUT/details.tar.gz" -T - 2>/dev/null)
			[ "$(wc -c <"$OUT/details.tar.gz")" -lt 15000000 ] && break
		done
	fi
	exit "$status"
}

# ---- 1. preflight: only what makes every check impossible ---------------------
FATAL=""
fatal() { FATAL="$FATAL$*
"; }
have timeout || { note "PREFLIGHT FAIL: coreutils timeout is missing"; finish 3 "CORRECT: NOT RUN (preflight)"; }
if have nvidia-smi; then
	q=$(dl 20 nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>&1)
	rc=$?
	echo "$q" >"$W/nvidia-smi.txt"
	if [ $rc -ne 0 ]; then
		fatal "no driver: nvidia-smi failed (status $rc): $(echo "$q" | head -1)"
	elif [ -z "$(echo "$q" | tr -d ' \n')" ]; then
		fatal "no GPU visible: nvidia-smi lists none (CUDA_VISIBLE_DEVICES='${CUDA_VISIBLE_DEVICES:-}')"
	else
		GPU=$(echo "$q" | head -1)
		drv=$(echo "$GPU" | awk -F', ' '{print $2}')
		major=${drv%%.*}
		case "$major" in
		'' | *[!0-9]*) say "preflight: driver version unreadable ('$drv'); the host check will tell" ;;
		*) [ "$major" -ge 580 ] || fatal "driver $drv is too old: CUDA 13 and its CUPTI need 580 or newer" ;;
		esac
	fi
else
	say "preflight: no nvidia-smi: the driver version is not checked; the host check will tell"
fi
libcuda=""
for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' ') /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib \
	/usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/wsl/lib; do
	[ -e "$d/libcuda.so.1" ] && { libcuda=$d/libcuda.so.1; break; }
done
[ -z "$libcuda" ] && have ldconfig && libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF; exit}')
[ -n "$libcuda" ] || fatal "no driver: libcuda.so.1 is nowhere on the library path"
if [ -n "$FATAL" ]; then
	while read -r l; do
		[ -n "$l" ] && note "PREFLIGHT FAIL: $l"
	done <<FATAL_LINES
$FATAL
FATAL_LINES
	finish 3 "CORRECT: NOT RUN (preflight: nothing can run here)"
fi
say "preflight: ok: ${GPU:-a GPU nvidia-smi did not name}; $libcuda"
[ $MODE = preflight ] && finish 0 "CORRECT: NOT RUN (--preflight-only)"

# ---- 2. the bundle -------------------------------------------------------------
if [ -z "$BUNDLE" ] && [ -x "$HERE/../bin/tix" ]; then
	BUNDLE=$HERE/..
elif [ -z "$BUNDLE" ]; then
	say "bundle: none given: building one (needs the CUDA 13 toolkit)"
	if ! sh "$HERE/../../scripts/gpu_bundle.sh" "$W/bundle" >"$W/bundle.txt" 2>&1; then
		note "BUILD FAIL: no bundle given, and none could be built here: $(tail -1 "$W/bundle.txt")"
		finish 4 "CORRECT: NOT RUN (no bundle, and none could be built here)"
	fi
	BUNDLE=$W/bundle
fi
B=$(cd "$BUNDLE" && pwd)
say "bundle: $B: $(head -1 "$B/MANIFEST" 2>/dev/null)"
TIX=$B/tix DUMP=$B/tixj-dump
E=${TIXGPU_E2E:-$B/bin/e2e_decode}
LDP=${TIXGPU_CUPTI_DIR:-$B/lib/cupti}:$B/lib/rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
missing=""
for f in "$B/bin/tix" "$B/bin/tixj-dump" "$E" "$B/lib/tix/libtixcap.so"; do
	echo "== $f" >>"$W/ldd.txt"
	if have ldd; then
		LD_LIBRARY_PATH=$LDP ldd "$f" >>"$W/ldd.txt" 2>&1
		m=$(LD_LIBRARY_PATH=$LDP ldd "$f" 2>&1 | awk '/not found/ {print $1}' | tr '\n' ' ')
		[ -n "$m" ] && missing="$missing $(basename "$f"): $m;"
	fi
done
cat "$W/ldd.txt" >>"$LOG"
say "bundle: libtixcap.so loads $(awk '/^== .*libtixcap/ {x=1} x && /libcupti/ {print $3; exit}' "$W/ldd.txt")"
[ -n "$missing" ] && { note "BUNDLE FAIL: libraries not found:$missing"; finish 4 "CORRECT: NOT RUN (the bundle cannot run here)"; }
v=$("$TIX" --version 2>&1) || { note "BUNDLE FAIL: tix does not run: $v"; finish 4 "CORRECT: NOT RUN (the bundle cannot run here)"; }
JUDGE=1
have python3 || { JUDGE=0; say "no python3: the captures run and are kept, the judges cannot (judge them elsewhere)"; }

# ---- 3. the host, without tix ----------------------------------------------------
dl 120 env LD_LIBRARY_PATH="$LDP" "$E" --mode eager --steps 2 >"$W/host.run" 2>"$W/host.err"
rc=$?
if [ $rc -ne 0 ]; then
	HOSTLINE="host: the test program fails without tix (status $rc): $(tail -1 "$W/host.err")"
	say "$HOSTLINE"
	finish 5 "CORRECT: NOT RUN (a host problem, not one of tix: the program fails alone)"
fi
HOSTLINE="host: the program runs without tix ($(sed -n 's/.*"mean_step_ms":\([0-9.]*\).*/\1 ms a step/p' "$W/host.run" | tail -1))"
say "$HOSTLINE"

# ---- 4. the checks ------------------------------------------------------------------
capture() { # NAME LIMIT [tix capture options] -- program args
	name=$1 lim=$2; shift 2
	rm -rf "$W/$name"
	dl "$lim" "$TIX" capture -o "$W/$name" "$@" >"$W/$name.run" 2>"$W/$name.err"
	rc=$?
	j=$(ls "$W/$name"/*.tixj 2>/dev/null | head -1)
	if [ -n "$j" ]; then
		dl 60 "$DUMP" --rows 5 "$j" >"$W/$name.dump" 2>&1
		say "  $name: $(grep '^rows:' "$W/$name.dump")"
	fi
	return $rc
}
index_of() { ls "$W/$1"/*.tixj.tix 2>/dev/null | head -1; }
judge() { # NAME CMD...: one line from the judge, PASS or FAIL
	name=$1; shift
	if [ $JUDGE = 0 ]; then record SKIP "$name" "captured, not judged (no python3)"; return; fi
	msg=$(dl 180 "$@" 2>&1)
	rc=$?
	echo "$msg" >"$W/$name.check"
	msg=$(echo "$msg" | tail -1)
	[ $rc -eq 0 ] && record PASS "$name" "$msg" || record FAIL "$name" "$msg"
}
check_mode() { # NAME MODE WANT_STEPS capture-args...
	name=$1 mode=$2 want=$3; shift 3
	if out_of_time 60; then record SKIP "$name" "out of time ($(elapsed) s)"; return; fi
	if capture "$name" 120 "$@" && [ -n "$(index_of "$name")" ]; then
		judge "$name" python3 "$HERE/check.py" "$mode" "$TIX" "$(index_of "$name")" "$W/$name.run" $want
	else
		record FAIL "$name" "capture failed (status $rc): $(tail -3 "$W/$name.err" | tr '\n' ' ' | cut -c1-200)"
	fi
}

check_mode eager eager "" -- "$E" --mode eager --steps "$STEPS"
check_mode graph graph "" -- "$E" --mode graph --steps "$STEPS"
check_mode graph-window graph 3 --cuda-profiler-api -- "$E" --mode graph --steps "$STEPS" --profile 4:6
check_mode eager-nvtx eager "" --nvtx 'step[DECODE bs=1]' -- "$E" --mode eager --steps "$STEPS"

# How CUPTI filled its buffers here (the dumps' "buffers:" lines, from the
# journals' BUFFERS rows): do kernel records share buffers with the API and
# NVTX ones, and how long does a buffer of them take to fill?
buffers() { # DUMP LABEL -> one phrase
	sed -n 's/^buffers: \([0-9]*\), with kernels \([0-9]*\) (with API or NVTX records too: \([0-9]*\)), kernel buffer span max \([0-9]*\) ns median \([0-9]*\) ns$/\1 \2 \3 \4 \5/p' "$1" 2>/dev/null |
		awk -v l="$2" '{ printf "%s: %d of %d buffers held kernels, %d of those API/NVTX records too, span max %.0f ms (median %.0f)", l, $2, $1, $3, $4 / 1e6, $5 / 1e6 }'
}
BOUNDS=$(buffers "$W/eager.dump" "eager, 4 MiB")

# SIGKILL: a long eager run with 1 MiB activity buffers, killed after ~4 s.
if out_of_time 90; then
	record SKIP sigkill "out of time ($(elapsed) s)"
else
	rm -rf "$W/kill"
	TIX_CAPTURE_BUFFER_MB=1 dl 120 "$TIX" capture -o "$W/kill" --flush-ms 250 -- \
		"$E" --mode eager --steps 5000 --progress >"$W/kill.run" 2>"$W/kill.err" &
	lp=$!
	n=0
	steps_done() { c=$(grep -c '^{"step"' "$W/kill.run" 2>/dev/null); echo "${c:-0}"; }
	while [ $n -lt 300 ] && kill -0 $lp 2>/dev/null && [ "$(steps_done)" -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 1
	child=$(grep -m1 '^{"step"' "$W/kill.run" 2>/dev/null | sed 's/.*"pid":\([0-9]*\).*/\1/')
	kill_ns=$(date +%s%N)
	[ -n "$child" ] && kill -9 "$child"
	wait $lp
	rc=$?
	j=$(ls "$W/kill"/*.tixj 2>/dev/null | head -1)
	[ -n "$j" ] && dl 60 "$DUMP" --rows 3 "$j" >"$W/kill.dump" 2>&1 && say "  kill: $(grep '^rows:' "$W/kill.dump")"
	tixk=$(index_of kill)
	if [ -z "$child" ]; then
		record FAIL sigkill "the program never reported progress: $(tail -3 "$W/kill.err" | tr '\n' ' ' | cut -c1-200)"
	elif [ $rc -ne 137 ] || [ -z "$tixk" ]; then
		record FAIL sigkill "launcher status $rc (want 137), index '$tixk': $(tail -3 "$W/kill.err" | tr '\n' ' ' | cut -c1-200)"
	else
		judge sigkill python3 "$HERE/check_kill.py" "$TIX" "$tixk" "$W/kill.dump" "$W/kill.run" "$kill_ns" 250 1
		kb=$(buffers "$W/kill.dump" "sigkill, 1 MiB")
		[ -n "$kb" ] && BOUNDS="${BOUNDS:+$BOUNDS; }$kb"
	fi
fi

case "$RESULTS" in
*FAIL*) CORRECT="CORRECT: FAIL" ;;
*SKIP*) CORRECT="CORRECT: INCOMPLETE (a check was skipped)" ;;
*) CORRECT="CORRECT: PASS" ;;
esac

# ---- 5. overhead: measured and reported, never a failure ------------------------------
overhead_runs() { # TAG program-args...
	tag=$1; shift
	for i in 1 2 3; do
		out_of_time 45 && return 1
		dl 60 env LD_LIBRARY_PATH="$LDP" "$E" "$@" >"$W/$tag.plain$i.run" 2>/dev/null
		capture "$tag.cap$i" 60 -- "$E" "$@" >/dev/null
	done
}
if [ $JUDGE = 1 ] && overhead_runs over --mode eager --steps 50; then
	PERF="eager $(python3 "$HERE/overhead.py" decode "$W" over)"
	overhead_runs gover --mode graph --steps 50 &&
		PERF="$PERF; graph $(python3 "$HERE/overhead.py" decode "$W" gover)"
	overhead_runs tiny --mode eager --steps 50 --tiny --per-layer 10 &&
		PERF="$PERF; launch-bound $(python3 "$HERE/overhead.py" launch "$W" tiny)"
	say "PERF: $PERF"
else
	PERF="not measured (out of time, or no python3)"
fi

case "$CORRECT" in
"CORRECT: PASS") finish 0 "$CORRECT" ;;
*) finish 1 "$CORRECT" ;;
esac

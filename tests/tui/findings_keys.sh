#!/bin/sh
# The Findings view's keys (issue 18) in the real tix TUI, in tmux: the
# first screen's word on the findings, 7 and Tab, the view of the real
# steps or of the step the user is in, the pane, sort and filter, each kind
# of Enter (the evidence in the other views) and Backspace back to the same
# row, --peak-bw / --peak-flops on the command line, 80 columns.
#
# usage: findings_keys.sh TIX GEN_TRACE.py WORKDIR
# Exit 0 pass, 1 fail, 77 skip (only when tmux is missing).
set -u
TIX=$1 GEN=$2 WORK=$3
HERE=$(cd "$(dirname "$0")" && pwd)
# wait_for, expect_line, keys, text, start, fail ... (the tmux session)
. "$HERE/tmux_lib.sh"

mkdir -p "$WORK" && cd "$WORK" || exit 1
rm -rf home ./*.tix ./tp4/*.tix && mkdir -p home
# the decode story (repeated_copy, memory_bound, exposed_comm); a rank whose
# CPU side is 4x slower (cpu_bound, idle_host, launch_bound); CUDA graph
# replays with an .item() (sync); a TP4 run whose rank 2 computes slower (straggler)
[ -f glm.json.gz ] || python3 "$GEN" -o glm.json.gz --steps 4 -q || { echo "FAIL: gen_trace.py"; exit 1; }
[ -f cpu-rank1.json ] || python3 "$GEN" -o cpu.json --ranks 2 --slow-rank 1 --slow-what cpu --slow-factor 4 \
	--steps 2 --layers 3 -q || { echo "FAIL: gen_trace.py"; exit 1; }
[ -f tp4/tp4-rank3.json ] || { mkdir -p tp4 && python3 "$GEN" -o tp4/tp4.json --ranks 4 --slow-rank 2 --steps 3 \
	--layers 4 -q; } || { echo "FAIL: gen_trace.py"; exit 1; }
[ -f graph.json.gz ] || python3 "$GEN" -o graph.json.gz --steps 3 --layers 4 --pre-window 6 --graph --seed 3 \
	-q || { echo "FAIL: gen_trace.py"; exit 1; }

# the status line (the second last line)
status_has() {
	n=30
	while [ "$n" -gt 0 ]; do
		line=$(screen | tail -n 2 | head -n 1)
		case $line in *"$1"*) return 0 ;; esac
		sleep 0.1
		n=$((n - 1))
	done
	fail "the status line should say '$1' but is '$line'"
}

# ---- the first screen, 7, the pane, Enter and Backspace (100x30) ----
start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "ProfilerStep" 60 || exit 1
status_has "3 findings; top: the same aten::copy_"
status_has ", could save 63.71 ms a step (7)"
expect_line 29 "1-7:views"
text 7
wait_for "› findings per step" || exit 1
wait_for "per step  averaged over 4 steps of 95.15 ms wall"
wait_for "device    NVIDIA B200 as B200: 8.00 TB/s memory bandwidth"
wait_for "GPU time  span"
wait_for "idle      host wait"
wait_for "  1     63.71 ms  69.0%  repeated_copy"
wait_for "#1 repeated_copy: the same copy or cast many times a step"
wait_for "how:      all but one of them: 64.54 ms x (78 - 1) / 78 = 63.71 ms"
wait_for "ops:      aten::to > aten::_to_copy > aten::copy_"
wait_for "overlaps: #2 (the same time: counted once)"
status_has "Findings: 3 findings, at 1"
# the pane follows the cursor
keys Down
wait_for "#2 memory_bound: a memory-bound op below its peak bandwidth"
wait_for "how:      its time minus its bytes at the peak bandwidth"
keys Up
wait_for "#1 repeated_copy"
# Enter: the cast kernel's launches beneath aten::copy_; Backspace: back, on the same row
keys Enter
wait_for "Launched by" || exit 1
status_has "launches of unrolled_elementwise_kernel<...> beneath aten::copy_, all steps (Bksp: findings)"
expect_line 0 "› findings per step › native::unrolled_elementwise_kernel<...>"
keys BSpace
wait_for "#1 repeated_copy"
status_has "Findings: 3 findings, at 1"
# exposed communication: the kernels, the cursor on the all-reduce
keys Down Down
status_has "at 3"
wait_for "Enter:    kernels, at the largest of 1 communication kernel: ncclDevKernel_AllRedu"
keys Enter
wait_for "Instances" || exit 1
status_has "(Bksp: findings)"
keys Enter
wait_for "› ncclDevKernel_AllReduce" # its launches: the cursor was on it
keys BSpace BSpace
wait_for "#3 exposed_comm"
status_has "Findings: 3 findings, at 3"
# sort (s, I), filter (f), c: the largest saving
text s
status_has "sort: #"
text I
status_has "sort: # (reversed)"
wait_for "  3      4.26 ms   4.6%  exposed_comm"
text c
wait_for "#1 repeated_copy"
text f
text "comm"
keys Enter
status_has "1 of 3 findings"
text f
keys Enter
status_has "Findings: 3 findings"
# of a step: the Steps view's selection
text 1
wait_for "4 steps"
keys Down
text 7
wait_for "› findings of step 0" || exit 1
wait_for "step      0, ProfilerStep#1, wall 95.21 ms"
wait_for "Enter:    launches of unrolled_elementwise_kernel<...> beneath aten::copy_, in the step"
keys Enter
wait_for "Launched by"
status_has "in the step (Bksp: findings)"
keys BSpace
# Tab: from the timeline to the findings, then to the steps
text 6
wait_for "timeline of step 0"
keys Tab
wait_for "› findings of step 0"
keys Tab
wait_for "4 steps"
# the keymap's help lists view 7
text "?"
wait_for "view 7: findings: why the step is slow, what a fix could save"
text q
wait_gone "view 7: findings"
text q
wait_for "TIX-EXITED-0"

# ---- the idle and CPU-bound findings: the timeline at a gap, the steps ----
TRACES=cpu-rank1.json start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "ProfilerStep" 60 || exit 1
text 7
wait_for "cpu_bound" || exit 1
keys Down
wait_for "#2 cpu_bound"
wait_for "Enter:    steps, at step"
keys Enter
wait_for "GPU busy" || exit 1
status_has "steps, at step "
keys BSpace
wait_for "#2 cpu_bound"
keys Down
wait_for "#3 idle_host"
keys Enter
wait_for "us/col" || exit 1
status_has "timeline: the longest host-wait gap of step"
expect_line 27 "kernel "   # the kernel that ends the gap is selected
keys BSpace
wait_for "#3 idle_host"
status_has "at 3"
keys Down
wait_for "#4 launch_bound"
keys Enter
wait_for "us/col" || exit 1
status_has "the longest host-wait gap"
keys BSpace
status_has "at 4"
text q
wait_for "TIX-EXITED-0"

# ---- sync: the timeline at the synchronising call ----
TRACES=graph.json.gz start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "ProfilerStep" 60 || exit 1
text 7
wait_for "sync " || exit 1
keys Down
wait_for "#2 sync"
keys Enter
wait_for "us/col" || exit 1
status_has "timeline: the first cudaStreamSynchronize"
wait_for "cudaStreamSynchronize  +"  # selected: the last line describes it
keys BSpace
wait_for "#2 sync"
# the GPU work before the trace is no step: 7 on its row gives the real steps'
text 1
wait_for "(before the trace)"
keys Down
text 7
status_has "the GPU work before the trace is no step: the findings of the real steps"
wait_for "› findings per step"
text q
wait_for "TIX-EXITED-0"

# ---- the ranks of a run: 7 from the Ranks view, the straggler among the findings ----
TRACES="tp4/tp4-rank0.json tp4/tp4-rank1.json tp4/tp4-rank2.json tp4/tp4-rank3.json" \
	start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "straggler: rank 2" 60 || exit 1
text 7
wait_for "› findings per step" || exit 1
wait_for "straggler     rank 2 is the straggler of 3 of 3 steps"
keys Down Down
wait_for "#3 straggler: one rank the others wait for"
keys Enter
wait_for "straggler: rank 2" || exit 1
status_has "ranks: the open traces side by side (Bksp: findings)"
keys BSpace
status_has "Findings: 3 findings, at 3"
text q
wait_for "TIX-EXITED-0"

# ---- --peak-bw and --peak-flops reach the view; a bad figure is a usage error ----
TRACES="glm.json.gz --peak-bw 3.35T --peak-flops bf16=989T" start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "ProfilerStep" 60 || exit 1
text 7
wait_for "3.35 TB/s memory bandwidth,"
wait_for "BF16 989.0 TFLOP/s dense (from --peak-bw / --peak-flops)"
text q
wait_for "TIX-EXITED-0"
TRACES="glm.json.gz --peak-bw fast" start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "TIX-EXITED-1"
wait_for "tix: "

# ---- 80 columns: the first screen's line fits, cut with a sign ----
start 80 24 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "ProfilerStep" 60 || exit 1
status_has "3 findings; top: the same aten::copy_"
line=$(screen | tail -n 2 | head -n 1)
[ "$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -m)" -le 80 ] || fail "the first screen's line is wider than 80: '$line'"
case $line in *"…"*) ;; *) fail "the first screen's line is cut without a sign: '$line'" ;; esac
text 7
wait_for "Findings: 3 findings"
wide=$(screen | LC_ALL=C.UTF-8 wc -L)
[ "$wide" -le 80 ] || fail "the Findings view is $wide columns wide at 80"
text q
wait_for "TIX-EXITED-0"

if [ "$FAILS" -ne 0 ]; then
	echo "tui_findings_keys: $FAILS failure(s)"
	exit 1
fi
echo "tui_findings_keys: ok"

#!/bin/sh
# Drives the real tix TUI in a tmux pseudo-terminal and checks the screen
# text.  Waits for what the screen should show (polling capture-pane with a
# timeout), never for a fixed time.
#
# usage: screen.sh TIX GEN_TRACE.py WORKDIR
# Exit 0 pass, 1 fail, 77 skip (only when tmux is missing).
set -u
TIX=$1 GEN=$2 WORK=$3
HERE=$(cd "$(dirname "$0")" && pwd)
# wait_for, expect_line, keys, text, start, fail ... (the tmux session)
. "$HERE/tmux_lib.sh"

mkdir -p "$WORK" && cd "$WORK" || exit 1
rm -f glm.json.gz glm.json.gz.tix rank1.json.gz rank1.json.gz.tix glm-*.json tix-export-*.json
rm -rf home && mkdir -p home
python3 "$GEN" -o glm.json.gz --steps 4 -q || { echo "FAIL: gen_trace.py"; exit 1; }
python3 "$GEN" -o rank1.json.gz --steps 2 --seed 2 -q || { echo "FAIL: gen_trace.py"; exit 1; }

# ---- the drill path, UTF-8, colour, 100x30 ----
start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "ProfilerStep" 60 || exit 1
wait_for "4 steps"
expect_line 0 "tix › glm.json.gz"
expect_line 1 "Wall"
expect_line 2 "all"
keys Down Enter
wait_for "› step 0" || exit 1
expect_line 2 "unrolled_elementwise_kernel"
expect_line 2 "[557496,1,1]"
keys Enter
wait_for "Launched by" || exit 1
expect_line 2 "[557496,1,1]"
expect_line 2 "aten::copy_"
keys Enter
wait_for "launch #0" || exit 1
wait_for "launched by       aten::copy_"
wait_for "[495552, 1, 576]"
wait_for "c10::Float8_e4m3fn"
wait_for "285,437,952 elements x (2 + 1) bytes"
# the sections further down: the op chain, outermost first, and the launch call
keys G
wait_for "aten::_to_copy  (cpu_op"
wait_for "aten::copy_  (cpu_op"
keys g
wait_for "grid x block"
# back twice, to the kernels of step 0
keys BSpace
wait_for "Launched by"
wait_gone "launch #0"
keys h
wait_for "Instances"
wait_gone "Launched by"

# ---- sort: s, I inverts (the arrow turns), S the menu; the cursor follows its row ----
text s
wait_for "sort: Instances"
expect_line 1 "Instances▼"
text I
wait_for "sort: Instances (reversed)"
expect_line 1 "Instances▲"
text s
wait_for "sort: Avg"
text S
wait_for "Sort by"
wait_for "now (descending)"
keys Down Enter
wait_for "sorted by Grid"
expect_line 1 "Grid▼"
# the cursor follows its row: on the cast kernel (first by Total), after a
# sort that puts it lower
text S
wait_for "Sort by"
keys Home Enter
wait_for "sorted by Time%"
keys Home
text S
wait_for "Sort by"
keys Down Down Enter
wait_for "sorted by Instances"
screen | grep -q "kernels, at 1 " && fail "after a sort the cursor stayed at position 1"
text S
wait_for "Sort by"
keys Home Down Enter
wait_for "sorted by Total"

# ---- search and n: the match becomes the selected row ----
text /
wait_for "search (regex): /"
text "nccl"
keys Enter
wait_gone "search (regex)"
wait_for "match 1 of"
$T capture-pane -p -e -t tui | grep -a "$(printf '\033')\[1;4mnccl" >/dev/null || fail "the match is not underlined"
keys Enter
wait_for "Launched by"
screen | sed -n 1p | grep -qi "nccl" || fail "search did not select an nccl kernel"
keys BSpace
wait_for "Instances"

# ---- filter ----
text f
wait_for "filter (regex"
text "nccl"
keys Enter
wait_for "filter: nccl"
screen | grep -Eq "Kernels: [0-9]+ of [0-9]+ kernels" || fail "the filter kept every row"
screen | sed -n '3,27p' | grep -v '^ *$' | grep -vi nccl | grep -q . && fail "filter kept rows without nccl"
# the prompt starts empty; Up recalls the last filter
text f
wait_for "filter (regex, empty: all):"
screen | grep -q "empty: all): nccl" && fail "the filter prompt did not start empty"
keys Up
wait_for "empty: all): nccl"
keys C-u Enter
wait_gone "filter: nccl"

# ---- short and full names ----
keys Home
text t
wait_for "full names"
wait_for "void at::native::"
text t
wait_for "short names"

# ---- view switching ----
text 5
wait_for "GPU time" || true
wait_for "aten::copy_"
expect_line 0 "› ops"
text 6
wait_for "timeline of step" || true
wait_for "GPU0 s7"
wait_for "(Enter: detail)"
keys Tab
wait_for "findings of step 0"
keys Tab
wait_for "4 steps"
text 3
wait_for "Launched by"
text 4
wait_for "Launch call"
text 2
wait_for "Instances"
text 1
wait_for "4 steps"

# ---- timeline: zoom, pan, select, detail ----
text g
keys Down
text 6
wait_for "timeline of step 0"
text "+"
text "."
text ">"
text "z"
wait_for "(Enter: detail)"
# arrows pan: Right moves the axis, it does not leave the view
wait_for "│+0 ns"
keys Right
wait_gone "│+0 ns"
wait_for "timeline of step 0"
keys Left
wait_for "│+0 ns"
# o: from the selected GPU work to its launch call, and back
text "o"
wait_for "the launch call of this GPU work (o: back)"
wait_for "runtime cuda"
text "o"
wait_for "the GPU work of this launch (o: back)"
screen | grep -q "^kernel " || fail "o did not come back to the kernel"
keys Enter
wait_for "Launch call"
keys BSpace
wait_for "(Enter: detail)"
text 1

# ---- export from the TUI, re-read by tix summary ----
wait_for "4 steps"
text g
keys Down Down
text e
wait_for "export to: ./glm-step1.json"
keys Enter
wait_for "exported" || true
wait_for "glm-step1.json"
if [ -s glm-step1.json ]; then
	"$TIX" summary glm-step1.json >summary.txt 2>&1 || fail "tix summary of the export failed: $(cat summary.txt)"
	grep -q "unrolled_elementwise_kernel" summary.txt || fail "the export's summary lacks the cast kernel"
else
	fail "no glm-step1.json written"
fi
# again: it asks before replacing, and n keeps the file
sleep 1.1; : >marker
text e
wait_for "export to: ./glm-step1.json"
keys Enter
wait_for "file exists: replace it? (y/n)"
text n
wait_for "export cancelled"
[ glm-step1.json -nt marker ] && fail "the export replaced the file after n"
# ~ is $HOME
text e
wait_for "export to:"
keys C-u
text "~/step1.json"
keys Enter
wait_for "exported"
[ -s home/step1.json ] || fail "~/step1.json was not written to \$HOME"

# ---- :N goes to step N; unknown keys and F1 ----
text ":"
wait_for "go to step:"
text 2
keys Enter
wait_for "rows, at 4"
text x
wait_for "key x does nothing here"
keys F1
wait_for "drill into the selected row"
text q
wait_gone "drill into the selected row"

# ---- y copies with OSC 52 (tmux keeps it as a paste buffer) ----
keys Home Down Enter
wait_for "Instances"
text y
# the TUI stays: the status line counts what went to the clipboard
wait_for "copied 743 chars (OSC 52; v shows them)"
n=50
while [ $n -gt 0 ] && ! $T show-buffer 2>/dev/null | grep -q "unrolled_elementwise_kernel<at::native"; do sleep 0.1; n=$((n - 1)); done
[ $n -gt 0 ] || fail "y did not put the full kernel name on the clipboard: $($T show-buffer 2>&1 | head -c 200)"
# v: the copied text on the alternate screen, to select by hand where OSC 52
# does not reach; a key brings the view back
text v
wait_for "743 chars; select with the mouse, a key returns"
wait_for "void at::native::unrolled_elementwise_kernel<"
keys Enter
wait_for "Instances"
text Y
wait_for "copied "
$T show-buffer | grep -q "^69.0$(printf '\t')64.59 ms$(printf '\t')78$(printf '\t')" || fail "Y did not copy the row as TSV"
# a short name fits the status line
keys End
text y
wait_for "copied 30 chars: Memcpy DtoH (Device -> Pinned)"
keys Home

# ---- group by shape: the story's 78 casts in one line ----
text 3
wait_for "Launched by"
text p
wait_for "78 launches, all [[495552, 1, 576], ...] Float8_e4m3fn -> BFloat16"
text p
wait_for "Launched by"

# ---- the mouse: a click selects, a header click sorts, a double click drills ----
# X10 mouse reports (what ncurses asks for under tmux): Esc [ M button x y
click() {
	for b in ' ' '#'; do
		$T send-keys -t tui -l "$(printf "\033[M$b$(printf '\\%03o\\%03o' $((33 + $1)) $((33 + $2)))")"
	done
}
text h
wait_for "Instances"
click 5 4
wait_for "kernels, at 3"
click 22 1
wait_for "sort: Instances"
click 5 2
click 5 2
wait_for "Launched by"
text h
wait_for "Instances"

# ---- F finds events by name in the whole trace ----
text F
wait_for "find in all events"
text "copy_"
keys Enter
wait_for "events match copy_"
wait_for "aten::copy_"
keys BSpace
wait_for "Instances"
text 1

# ---- help ----
text "?"
wait_for "drill into the selected row"
text q
wait_gone "drill into the selected row"

# ---- resize: 80x24, then too small, then back ----
$T resize-window -t tui -x 80 -y 24
wait_for "4 steps"
wide=$(screen | LC_ALL=C.UTF-8 wc -L)
[ "$wide" -le 80 ] || fail "lines $wide columns wide after the resize to 80"
expect_line 23 "q:quit"
$T resize-window -t tui -x 10 -y 1
wait_for "too small"
$T resize-window -t tui -x 100 -y 30
wait_for "4 steps"

# ---- quit ----
text q
wait_for "TIX-EXITED-0" || true

# ---- NO_COLOR, ASCII locale, 80x24: the same drill ----
start 80 24 LANG=C LC_ALL=C NO_COLOR=1
wait_for "ProfilerStep" 30
expect_line 0 "tix > glm.json.gz"
screen | grep -q '›' && fail "UTF-8 glyphs in the C locale"
keys Down Enter
wait_for "> step 0"
expect_line 2 "unrolled_elementwise_kernel"
keys Enter
wait_for "557496"
keys Enter
wait_for "launched by       aten::copy_"
wait_for "[495552, 1, 576]"
wait_for "bytes moved"
# no colour escapes: only reverse video and bold
$T capture-pane -p -e -t tui | grep -q "$(printf '\033')\[3[0-7]m" && fail "colours with NO_COLOR set"
text q
wait_for "TIX-EXITED-0"

# ---- several traces: ] and [ switch, each keeps its place ----
TRACES="glm.json.gz rank1.json.gz" start 100 30 LANG=C.UTF-8 LC_ALL=C.UTF-8
wait_for "glm.json.gz [1/2]" 60
wait_for "4 steps"
keys Down Enter
wait_for "› step 0"
text "]"
wait_for "rank1.json.gz [2/2]" 60
wait_for "2 steps"
text "["
wait_for "glm.json.gz [1/2] › step 0"
text q
wait_for "TIX-EXITED-0"

# ---- TERM=xterm-256color inside tmux: End arrives as Esc [ 4 ~ and must not switch views ----
start 100 30 LANG=C.UTF-8 TERM=xterm-256color
wait_for "4 steps" 30
keys End
wait_for "rows, at 5"
screen | grep -q "Launch call" && fail "End leaked a digit that switched views"
keys Home
wait_for "rows, at 1"
keys F10
wait_for "TIX-EXITED-0"

# ---- a terminal that cannot address the cursor: a clear error, exit 1 ----
start 80 24 LANG=C.UTF-8 TERM=dumb
wait_for "cannot move the cursor"
wait_for "TIX-EXITED-1"

# ---- stdout not a terminal: one line naming tix summary, exit 1 ----
"$TIX" glm.json.gz >out.txt 2>err.txt </dev/null
rc=$?
[ "$rc" -eq 1 ] || fail "exit status $rc without a terminal (want 1)"
[ "$(wc -l <err.txt)" -eq 1 ] || fail "want one line on stderr, got: $(cat err.txt)"
grep -q "tix summary" err.txt || fail "the message does not name tix summary: $(cat err.txt)"

if [ "$FAILS" -ne 0 ]; then
	echo "tui_screen: $FAILS failure(s)"
	exit 1
fi
echo "tui_screen: ok"

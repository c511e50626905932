# The helpers of the scripts that drive the real tix TUI in tmux and check
# the screen text (screen.sh, findings_keys.sh): they wait for what the
# screen should show (polling capture-pane with a timeout), never for a
# fixed time.  Sourced once TIX and WORK are set (it exits 77 without tmux,
# 1 without the binary); the caller reports FAILS at its end.
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
[ -x "$TIX" ] || { echo "FAIL: no tix binary at $TIX"; exit 1; }

SOCK="tix-tui-test-$$"
T="tmux -L $SOCK -f /dev/null"
# start() sets set-clipboard on: tmux takes OSC 52 from tix as a paste
# buffer (and passes it on to the outer terminal)
trap '$T kill-server 2>/dev/null' EXIT INT TERM
export TZ=UTC
FAILS=0

fail() {
	echo "FAIL: $*"
	echo "----- screen -----"
	$T capture-pane -p -t tui 2>/dev/null
	echo "------------------"
	FAILS=$((FAILS + 1))
}

screen() { $T capture-pane -p -t tui; }

# wait_for TEXT [SECONDS]: until the screen shows TEXT (fixed string)
wait_for() {
	n=$(( ${2:-15} * 10 ))
	while [ "$n" -gt 0 ]; do
		screen | grep -Fq -- "$1" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	fail "timed out waiting for '$1'"
	return 1
}

# wait_gone TEXT: until the screen no longer shows TEXT
wait_gone() {
	n=150
	while [ "$n" -gt 0 ]; do
		screen | grep -Fq -- "$1" || return 0
		sleep 0.1
		n=$((n - 1))
	done
	fail "timed out waiting for '$1' to go"
	return 1
}

# expect_line N TEXT: screen line N (0-based) contains TEXT
# (polled for up to 3 s: a capture may catch the terminal mid-redraw)
expect_line() {
	n=30
	while [ "$n" -gt 0 ]; do
		line=$(screen | sed -n "$(( $1 + 1 ))p")
		case $line in
		*"$2"*) return 0 ;;
		esac
		sleep 0.1
		n=$((n - 1))
	done
	fail "line $1 should contain '$2' but is '$line'"
}

keys() { $T send-keys -t tui "$@"; }
text() { $T send-keys -t tui -l "$1"; }

# start W H ENV...: a fresh session running tix on the trace
start() {
	w=$1 h=$2
	shift 2
	$T kill-session -t tui 2>/dev/null
	$T new-session -d -s tui -x "$w" -y "$h" -c "$WORK" \
		"env HOME=$WORK/home $* $TIX ${TRACES:-glm.json.gz}; echo TIX-EXITED-\$?; sleep 600"
	# the server outlives a killed session (no race with the next start)
	$T set -g set-clipboard on \; set -g exit-empty off
}

#!/bin/sh
# scripts/setup.sh (issue 20 item 8): a user's setup installs what running
# tix needs, not the test and fuzz tools, which --dev adds; on a system
# without dpkg and apt it names the packages and installs nothing.
# usage: setup_test.sh SRC WORK
set -u
SRC=$1 WORK=$2
S=$SRC/scripts/setup.sh
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok    $*"; }
mkdir -p "$WORK" || exit 1
user=$("$S" --list) || fail "setup.sh --list failed"
dev=$("$S" --dev --list) || fail "setup.sh --dev --list failed"
for p in cmake libsimdjson-dev libncurses-dev zlib1g-dev; do
	echo "$user" | grep -qx "$p" && ok "users get $p" || fail "users do not get $p: $user"
done
for p in clang libclang-rt-dev man-db tmux; do
	echo "$user" | grep -qx "$p" && fail "users get $p (a test or fuzz tool)" || ok "users do not get $p"
	echo "$dev" | grep -qx "$p" && ok "--dev gets $p" || fail "--dev does not get $p: $dev"
done
# no dpkg/apt: a PATH of the shell's tools, without them (nor cmake)
bin=$WORK/no-apt-bin
rm -rf "$bin" && mkdir -p "$bin"
for t in bash sh env grep sed printf id cat; do
	p=$(command -v "$t") && ln -sf "$p" "$bin/$t"
done
out=$(PATH=$bin "$bin/bash" "$S" 2>&1)
rc=$?
[ $rc -eq 1 ] && ok "without dpkg/apt and cmake: exit 1" || fail "without dpkg/apt and cmake: exit $rc: $out"
echo "$out" | grep -q "no dpkg/apt here" && echo "$out" | grep -q "libsimdjson-dev" &&
	ok "without dpkg/apt: it names the packages" || fail "without dpkg/apt: $out"
echo "$out" | grep -q "apt-get" && fail "without dpkg/apt it still spoke of apt-get: $out"
[ $fails -eq 0 ] || exit 1
echo "setup_test: passed"

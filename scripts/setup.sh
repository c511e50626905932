#!/usr/bin/env bash
# Installs from Debian's packages what is missing:
#
#   scripts/setup.sh          what building and running tix needs (make demo)
#   scripts/setup.sh --dev    that, and what the tests, the benchmark and the
#                             fuzzers need (make test, .ci/run): tmux, clang and
#                             its libFuzzer runtime, the man page's renderers
#   ... --list                print the packages it would install, install none
#
# It says what it installs and shows apt's progress.  On a system without
# dpkg and apt it installs nothing: it says which packages (Debian's names)
# a build needs, and exits 1 when a tool of them is missing.  CUDA/CUPTI is
# optional and comes from /usr/local/cuda if there.
set -euo pipefail

dev=0 list=0
for a in "$@"; do
	case $a in
	--dev) dev=1 ;;
	--list) list=1 ;;
	-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "setup: unknown option '$a' (--dev, --list)" >&2; exit 1 ;;
	esac
done

# building and running tix (libisal: .json.gz inflated ~3x faster than zlib)
pkgs=(build-essential cmake pkg-config libsimdjson-dev libncurses-dev zlib1g-dev libisal-dev)
# the tests (python3, tmux), bench/run.sh (isal's igzip), scripts/fuzz.sh
# (clang and libFuzzer), core_install (groff, man)
dev_pkgs=(python3 tmux isal clang libclang-rt-dev groff-base man-db)
[ "$dev" -eq 1 ] && pkgs+=("${dev_pkgs[@]}")

if [ "$list" -eq 1 ]; then
	printf '%s\n' "${pkgs[@]}"
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	# Not Debian: name what to install, check what a build cannot do without.
	echo "setup: no dpkg/apt here; install these (Debian's names; your system's may differ):"
	echo "  ${pkgs[*]}"
	need=(cmake pkg-config cc c++)
	[ "$dev" -eq 1 ] && need+=(python3 tmux clang)
	missing=()
	for t in "${need[@]}"; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	if [ ${#missing[@]} -ne 0 ]; then
		echo "setup: missing: ${missing[*]}" >&2
		exit 1
	fi
	exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"

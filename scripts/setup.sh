#!/usr/bin/env bash
# Installs what tix needs to build and test, from Debian's packages, when it
# is missing.  CUDA/CUPTI is optional and comes from /usr/local/cuda if there.
set -euo pipefail

pkgs=(build-essential cmake pkg-config libsimdjson-dev libncurses-dev zlib1g-dev libisal-dev isal
      python3 tmux clang libclang-rt-dev groff-base man-db)
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
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

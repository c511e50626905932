#!/usr/bin/env bash
# The whole ctest suite in an AddressSanitizer + UndefinedBehaviorSanitizer
# build (build-asan, -DTIX_SANITIZE=ON).  Fails on any test failure; a
# sanitizer report fails the test that triggered it (halt_on_error).
#
#   scripts/ci-asan.sh [CTEST ARGS...]       e.g. -R core_ to run a subset
#
# Environment:
#   BUILD_ASAN        build folder (default build-asan)
#   JOBS              parallel build and test jobs (default: nproc)
#   TIX_ASAN_EXCLUDE  ctest -E regex of tests to leave out under ASan
#                     (default: none; see docs/RELIABILITY.md)
#   TIX_ASAN_TIMEOUT  per-test timeout in seconds (default 900: ASan is 2-4x slower)
#   TIX_TEST_TRIM     1 (default here): tests/reliability uses smaller traces
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_ASAN=${BUILD_ASAN:-build-asan}
JOBS=${JOBS:-$(nproc)}

cmake -S . -B "$BUILD_ASAN" -DCMAKE_BUILD_TYPE=Debug -DTIX_SANITIZE=ON >/dev/null
cmake --build "$BUILD_ASAN" -j "$JOBS"

# detect_leaks: LeakSanitizer too; abort_on_error gives a core-like exit that
# the tests see as a crash; the suppressions file is for leaks in system
# libraries we do not own (ncurses keeps its terminal data on purpose).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -f scripts/lsan.supp ]; then
	export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}
fi

# the tests of tests/reliability honour TIX_TEST_TRIM: smaller traces, fewer rounds
export TIX_TEST_TRIM=${TIX_TEST_TRIM:-1}

args=(--output-on-failure -j "$JOBS" --timeout "${TIX_ASAN_TIMEOUT:-900}")
if [ -n "${TIX_ASAN_EXCLUDE:-}" ]; then
	args+=(-E "$TIX_ASAN_EXCLUDE")
fi
cd "$BUILD_ASAN"
ctest "${args[@]}" "$@"

#!/usr/bin/env bash
# Static analysis, a stage of .ci/run (docs/STYLE.md, "Guards"): cppcheck
# over every C and C++ file of the tree, each report a failure.  A report
# that is wrong is suppressed where it is made, on the line before, with
# the reason it is not a bug:
#
#     /* cppcheck-suppress uninitvar ; with k == 0 qsort reads none of names */
#
# and a suppression that no longer matches anything fails the stage too, so
# none outlives the code it excused.  Debian's cppcheck 2.10 (apt-get
# install cppcheck); about a minute on one core, so it runs on one (cppcheck
# -j reports the global suppressions below as unmatched).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cppcheck >/dev/null 2>&1; then
	echo "cppcheck.sh: cppcheck is not installed (Debian: apt-get install cppcheck)" >&2
	exit 1
fi
# The global suppressions, each for a whole class of noise, not for code:
#   ConfigurationNotChecked  #ifdef switches it cannot know (ncurses'
#                            BUTTON5_PRESSED, TIXCAP_BUILD_LIB): the
#                            configurations it sees are checked
#   missingIncludeSystem     libc's and the libraries' headers are not given
#                            to it; it knows their functions itself
#   unmatchedSuppression:nofile  those two, in a tree that needs neither
exec cppcheck --quiet --std=c11 --enable=warning,portability,performance,information \
	--inline-suppr --error-exitcode=1 -I . \
	--suppress=ConfigurationNotChecked --suppress=missingIncludeSystem \
	--suppress=unmatchedSuppression:nofile \
	cli index parse tui cupti_capture tests fuzz bench

"""Helpers of tests/reliability (stdlib only), on top of tests/core/tixtest.py."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "core"))

import tixtest  # noqa: E402,F401

SKIP = 77  # CTest SKIP_RETURN_CODE


def leftovers(d, keep=()):
    """Files in d other than `keep`: temporary files tix left behind."""
    return sorted(f for f in os.listdir(d) if f not in keep)


def is_hint(line):
    """`(N more; --top N shows more)`: the CLI's hints go to stderr, not into pipes."""
    return line.startswith("(") and ("more;" in line or "shown;" in line)


def no_hints(err):
    return "\n".join(l for l in err.split("\n") if not is_hint(l))


def one_line(err):
    lines = [l for l in err.split("\n") if l.strip() and not is_hint(l)]
    return len(lines) == 1, (lines[0] if lines else "")


def index_ok(args, path):
    """(ok, detail): `tix info PATH` accepts the index."""
    rc, out, err = tixtest.tix(args, "info", path)
    return rc == 0 and "events:" in out, "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:200])

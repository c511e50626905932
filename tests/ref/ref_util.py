"""Helpers shared by the reference harnesses (hta_reference.py, tracelens_reference.py)."""

import datetime
import math
import os
import subprocess
import sys


def trace_key(path):
    """The trace's path below its traces/ folder (real/x.json.gz), else its file name."""
    parts = os.path.normpath(path).split(os.sep)
    if "traces" in parts:
        return "/".join(parts[len(parts) - parts[::-1].index("traces") :])
    return os.path.basename(path)


def json_number(x, keep):
    """x as a JSON-safe number: ints stay ints, NaN and inf become null, other
    floats go through keep (the caller's rounding); what is not a number, a string."""
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f) or math.isinf(f):
        return None
    if f == int(f) and abs(f) < 2**53:
        return int(f)
    return keep(f)


def git_commit(path):
    """The commit checked out at path, or None when it is not a git checkout."""
    try:
        return subprocess.check_output(["git", "-C", path, "rev-parse", "HEAD"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def provenance(tool, checkout, command, traces):
    """The fields every golden starts with: which tool, at which commit, run how and when."""
    import pandas

    return {
        "tool": tool,
        "commit": git_commit(checkout),
        "command": command + " " + " ".join(os.path.relpath(t) for t in traces),
        "date": datetime.date.today().isoformat(),
        "python": sys.version.split()[0],
        "pandas": pandas.__version__,
    }

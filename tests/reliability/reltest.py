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


def expect(args, chk, label, argv, want, must=(), mustnot=(), **kw):
    """Runs tix argv; checks the exit status `want` and, when it is not 0,
    one line on stderr holding every string of `must` and none of
    `mustnot`.  Returns (rc, stdout, stderr)."""
    rc, out, err = tixtest.tix(args, *argv, **kw)
    one, line = one_line(err)
    ok = rc == want and (want == 0 or (one and all(m in line for m in must) and
                                       not any(m in line for m in mustnot)))
    chk.check(ok, "%s: exit %d%s" % (label, want, (", one line with %s" % list(must)) if must else ""),
              "rc %d %s stdout %r stderr %r" % (rc, tixtest.describe_crash(rc), out[:200], err[:300]))
    return rc, out, err


def scratch(args, name):
    """A fresh folder `name` in the work folder (emptied if it was there)."""
    d = os.path.join(args.work, name)
    import shutil
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def start(doc, name, folder, *required):
    """The opening of a test: its arguments (--tix, --work and the `required`
    ones, (flag, help) pairs), its checker, and a fresh folder `folder`."""
    p = tixtest.arg_parser(doc)
    for flag, what in required:
        p.add_argument(flag, required=True, help=what)
    args = tixtest.setup(p.parse_args())
    return args, tixtest.Checker(name), scratch(args, folder)

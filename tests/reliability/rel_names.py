#!/usr/bin/env python3
"""Issue 9, item 4: file names are escaped in every message, like trace
bytes: a name holding a newline, an escape sequence, a C1 control (CSI,
U+009B) or bytes that are not UTF-8 gives one line with \\xNN in its place,
never the raw bytes.  Before: printed raw (a two-line error; ESC reached
the terminal).  Valid UTF-8 names pass as they are.

    rel_names.py --tix TIX --work DIR
"""
import os
import shutil
import subprocess

import reltest
from reltest import tixtest

KERNEL = b'{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":3}'
HOSTILE = [
    (b"new\nline", b"new\\x0aline"),
    (b"esc\x1b[2Jclear", b"esc\\x1b[2Jclear"),
    (b"csi\xc2\x9b31m", b"csi\\xc2\\x9b31m"),
    (b"latin1-\xe9t\xe9", b"latin1-\\xe9t\\xe9"),
]


def raw_bytes(data):
    """The control bytes (but newlines between lines) and invalid UTF-8 in data."""
    bad = [c for c in data if (c < 0x20 and c != 0x0a) or c == 0x7f]
    try:
        text = data.decode("utf-8")
        bad += [ord(ch) for ch in text if 0x80 <= ord(ch) < 0xa0]
    except UnicodeDecodeError:
        bad.append(-1)
    return bad


def run(args, argv, cwd):
    p = subprocess.run([os.fsencode(args.tix)] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       cwd=cwd, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_names")
    d = os.path.join(args.work, "names")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    db = os.fsencode(d)
    for raw, shown in HOSTILE:
        label = shown.decode()
        good = os.path.join(db, raw + b".json")
        with open(good, "wb") as f:
            f.write(b'{"traceEvents": [' + KERNEL + b"," + KERNEL[:30])  # truncated: a warning
        bad = os.path.join(db, raw + b"-bad.json")
        with open(bad, "wb") as f:
            f.write(b"hello")
        cases = [
            ("missing file", [b"summary", os.path.join(db, raw + b"-none.json")], 2, True),
            ("not JSON", [b"summary", bad, b"--no-cache"], 2, True),
            ("truncated: the warning", [b"summary", good, b"--no-cache"], 0, True),
            ("tix index: its report", [b"index", good], 0, False),
            ("tix info: its report", [b"info", good + b".tix"], 0, False),
            ("tix export: its report", [b"export", good, b"-o", os.path.join(db, raw + b"-out.json")], 0, False),
            ("a typo'd command", [raw], 1, True),
        ]
        for what, argv, want, on_stderr in cases:
            rc, out, err = run(args, argv, d)
            text = err if on_stderr else out
            lines = [l for l in text.split(b"\n") if l.strip()]
            chk.check(rc == want and not raw_bytes(out) and not raw_bytes(err) and
                      (not on_stderr or len(lines) == 1) and any(shown in l for l in lines),
                      "%s, named %r: exit %d, %s shows %s, no raw byte" %
                      (what, raw, want, "stderr" if on_stderr else "stdout", label),
                      "rc %d %s stdout %r stderr %r" % (rc, tixtest.describe_crash(rc), out[:300], err[:300]))
    # valid UTF-8 is not escaped
    utf = os.path.join(db, "trace-µs-日本.json".encode())
    rc, out, err = run(args, [b"summary", utf], d)
    chk.check(rc == 2 and "trace-µs-日本.json".encode() in err, "a UTF-8 name is shown as it is", repr(err))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Hostile inputs that tests/core/e2e_broken.py does not cover, with the
messages they must give (docs/RELIABILITY.md lists them all):
a FIFO and a pipe (/dev/fd/N) as the trace or the .tix (must not hang:
exit 2, "not a regular file"), a device, a file without read permission
(run as nobody when root), nesting 300 deep inside one event, 1 MB
strings, control bytes where JSON was expected (no raw byte in the message),
an invalid regex holding a newline (one line), NaN-like numbers.

    rel_hostile.py --tix TIX --work DIR
"""
import json
import os
import shutil
import subprocess
import sys

import reltest
from reltest import tixtest

KERNEL = '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":3}'


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def expect_error(args, chk, label, argv, path, must=(), timeout=20, env=None, pre=None, want=2):
    rc, out, err = tixtest.run(([] if pre is None else pre) + [args.tix] + list(argv), timeout=timeout, env=env)
    one, line = reltest.one_line(err)
    chk.check(rc == want and one and path in line and all(m in line for m in must),
              "%s: exit %d, one line naming it%s" % (label, want, (" with %s" % list(must)) if must else ""),
              "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:300]))
    return line


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_hostile")
    d = os.path.join(args.work, "hostile")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)

    # FIFOs: nobody will ever write to them; tix must not wait for a writer
    fifo = os.path.join(d, "fifo.json")
    os.mkfifo(fifo)
    expect_error(args, chk, "a FIFO as the trace (tix summary)", ("summary", fifo, "--no-cache"), fifo,
                 ("not a regular file",), timeout=10)
    expect_error(args, chk, "a FIFO as the trace (tix index)", ("index", fifo), fifo, ("not a regular file",), timeout=10)
    fifo_tix = os.path.join(d, "fifo.tix")
    os.mkfifo(fifo_tix)
    expect_error(args, chk, "a FIFO as the index (tix info)", ("info", fifo_tix), fifo_tix, ("not a regular file",),
                 timeout=10)
    # a pipe: what `tix summary <(zcat trace.json.gz)` passes; with and
    # without --no-cache (the index must not be looked for next to it)
    for extra in (["--no-cache"], []):
        r, w = os.pipe()
        os.write(w, b'{"traceEvents": [' + KERNEL.encode() + b"]}")
        os.close(w)
        pipe = "/dev/fd/%d" % r
        proc = subprocess.run([args.tix, "summary", pipe] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              pass_fds=(r,), timeout=10)
        os.close(r)
        err = proc.stderr.decode("utf-8", "replace")
        one, line = reltest.one_line(err)
        chk.check(proc.returncode == 2 and one and pipe in line and "not a regular file" in line,
                  "a pipe as the trace (/dev/fd/N%s): exit 2, one line naming it with 'not a regular file'"
                  % (", " + extra[0] if extra else ""), "rc %d stderr %r" % (proc.returncode, err[:300]))
    expect_error(args, chk, "a device (/dev/null)", ("summary", "/dev/null", "--no-cache"), "/dev/null",
                 ("not a regular file",))

    # no read permission
    noperm = write(os.path.join(d, "noperm.json"), '{"traceEvents": [%s]}' % KERNEL)
    os.chmod(noperm, 0)
    os.chmod(d, 0o755)
    pre = None
    why = "running as root and setpriv is missing"
    if os.geteuid() == 0 and shutil.which("setpriv"):
        pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        up = d  # nobody must reach the file to be refused by it
        while len(up) >= len(os.path.abspath(args.work)):
            os.chmod(up, os.stat(up).st_mode | 0o011)
            up = os.path.dirname(up)
        if subprocess.run(pre + ["test", "-x", d]).returncode != 0:
            pre, why = None, "user nobody cannot reach %s" % d
    if os.geteuid() == 0 and pre is None:
        chk.skip("no read permission", why)
    else:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(d, "nobody-cache"))
        # permission is the environment's refusal, not bad input (issue 9, item 9)
        expect_error(args, chk, "a trace without read permission", ("summary", noperm), noperm,
                     ("Permission denied",), env=env, pre=pre, want=3)

    # nesting 300 deep inside one event's args: the other events are kept,
    # or the trace is refused with a message that says what is wrong
    deep = write(os.path.join(d, "deep.json"), '{"traceEvents": [%s, {"ph":"X","cat":"kernel","name":"k2","pid":0,'
                 '"tid":7,"ts":30,"dur":1,"args":{"x":%s}}]}' % (KERNEL, "[" * 300 + "]" * 300))
    rc, out, err = tixtest.tix(args, "summary", deep, "--no-cache")
    one, line = reltest.one_line(err)
    chk.check((rc == 0 and "k1" in out) or (rc == 2 and one and deep in line and "byte" in line
                                           and "unbalanced" not in line),
              "nesting 300 deep in one event (balanced): indexed with the other events, or exit 2 with a message "
              "that does not call balanced brackets unbalanced", "rc %d stderr %r" % (rc, err[:300]))
    deep2 = write(os.path.join(d, "deep-top.json"), '{"x": %s, "traceEvents": [%s]}' % ("[" * 100000 + "]" * 100000,
                                                                                           KERNEL))
    rc, out, err = tixtest.tix(args, "summary", deep2, "--no-cache")
    one, line = reltest.one_line(err)
    chk.check(rc in (0, 2) and (rc == 0 or (one and deep2 in line)),
              "nesting 100000 deep in a top-level key: exit 0 or 2 with one line, no crash",
              "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:300]))

    # 1 MB strings: a kernel name and an args value
    big = write(os.path.join(d, "bigstr.json"), '{"traceEvents": [%s, {"ph":"X","cat":"kernel","name":"%s","pid":0,'
                '"tid":7,"ts":30,"dur":1,"args":{"note":"%s"}}]}' % (KERNEL, "n" * (1 << 20), "a" * (1 << 20)))
    rc, out, err = tixtest.tix(args, "summary", big, "--no-cache", "--format", "json")
    names = [k["name"] for k in json.loads(out)["kernels"]] if rc == 0 else []
    chk.check(rc == 0 and len(names) == 2 and (1 << 20) in [len(n) for n in names],
              "1 MB kernel name and 1 MB args string: indexed, the name kept whole",
              "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:200]))
    out_json = os.path.join(d, "bigstr-export.json")
    rc, out, err = tixtest.tix(args, "export", big, "-o", out_json)
    ok = rc == 0 and any(len(e.get("args", {}).get("note", "")) == 1 << 20
                         for e in json.load(open(out_json))["traceEvents"] if isinstance(e, dict))
    chk.check(ok, "1 MB strings survive export", "rc %d %r" % (rc, err[:200]))

    # control bytes where a '{' was expected: the message must not carry
    # them raw (a terminal escape, or a NUL that cuts the message short)
    for label, data in (("ESC [31m", b"\x1b[31mred"), ("a NUL byte", b"\x00{}"),
                        ("a control byte after an event", b'{"traceEvents": [{"ph":"X"}\n\x01')):
        path = os.path.join(d, "ctl-%d.json" % len(data))
        with open(path, "wb") as f:
            f.write(data)
        # --strict: the junk after an event is an error too (without it, the
        # trace is salvaged as cut short there)
        proc = subprocess.run([args.tix, "summary", path, "--no-cache", "--strict"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=20)
        raw = proc.stderr
        text = raw.decode("utf-8", "replace")
        one, line = reltest.one_line(text)
        clean = not any(b < 0x20 and b != 0x0A for b in raw) and raw.count(b"'") % 2 == 0
        chk.check(proc.returncode == 2 and one and path in line and clean,
                  "%s instead of JSON: exit 2, one line, no raw control byte in it" % label,
                  "rc %d stderr %r" % (proc.returncode, raw[:200]))

    # a user's regex with a newline: a usage error, still on one line
    small = write(os.path.join(d, "small.json"), '{"traceEvents": [%s]}' % KERNEL)
    for argv in (("export", small, "--kernel", "a\n(", "-o", os.path.join(d, "x.json")),
                 ("show", small, "--kernel", "(\n"), ("summary", small, "--step-marker", "x\n(")):
        rc, out, err = tixtest.tix(args, *argv)
        one, line = reltest.one_line(err)
        chk.check(rc == 1 and one and "regex" in line,
                  "tix %s with an invalid regex holding a newline: exit 1, one line" % argv[0],
                  "rc %d stderr %r" % (rc, err[:200]))

    # NaN-like numbers: not JSON (NaN, Infinity) or out of range (1e999)
    for label, v, want in (("NaN", "NaN", 2), ("Infinity", "Infinity", 2), ("-Infinity", "-Infinity", 0),
                           ("1e999", "1e999", 0), ("-1e999", "-1e999", 0), ('"NaN"', '"NaN"', 0)):
        path = write(os.path.join(d, "nan-%s.json" % "".join(c for c in label if c.isalnum() or c == "-")),
                     '{"traceEvents": [%s, {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":%s,"dur":%s}]}'
                     % (KERNEL, v, v))
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache", *(["--strict"] if want == 2 else []))
        one, line = reltest.one_line(err)
        if want == 2:  # not JSON: a malformed event, an error with --strict, else skipped
            chk.check(rc == 2 and one and path in line and "byte" in line,
                      "ts and dur %s (not JSON), --strict: exit 2, one line with the byte offset" % label,
                      "rc %d %s %r" % (rc, tixtest.describe_crash(rc), err[:200]))
            rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
            one, line = reltest.one_line(err)
            chk.check(rc == 0 and one and "1 malformed event skipped" in line and "byte 88" in line and "k1" in out,
                      "ts and dur %s (not JSON): indexed, that event skipped with one warning" % label,
                      "rc %d %s %r" % (rc, tixtest.describe_crash(rc), err[:200]))
        else:
            chk.check(rc == 0 and one and "1 events skipped" in line and "k1" in out,
                      "ts and dur %s: indexed, that event skipped with one warning" % label,
                      "rc %d %s %r" % (rc, tixtest.describe_crash(rc), err[:200]))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Issue 9, item 9: error classes and the exit status (docs/CLI.md):
1 usage, 2 bad input, 3 the environment.  Before: a file too large for the
system (the full disk's twin, without root) exited 2 "bad input";
`tix summary -dash.json` said "unknown option 'summary'"; `tix sumary t.json`
was taken as a trace named "sumary".

    rel_exit.py --tix TIX --work DIR
"""
import os
import resource
import shutil
import signal

import reltest
from reltest import tixtest

KERNEL = '{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":3}'


def expect(args, chk, label, argv, want, must=(), mustnot=(), preexec=None, cwd=None):
    import subprocess
    p = subprocess.run([args.tix] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=preexec, cwd=cwd, timeout=60)
    err = p.stderr.decode("utf-8", "replace")
    one, line = reltest.one_line(err)
    ok = p.returncode == want and one and all(m in line for m in must) and not any(m in line for m in mustnot)
    chk.check(ok, "%s: exit %d, one line%s" % (label, want, (" with %s" % list(must)) if must else ""),
              "rc %d %s stderr %r" % (p.returncode, tixtest.describe_crash(p.returncode), err[:300]))


def small_files():
    """In the child: files may not grow past 64 KiB, and writing past it
    fails with EFBIG instead of killing the process (SIGXFSZ ignored)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_exit")
    d = os.path.join(args.work, "exit")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    trace = os.path.join(d, "t.json")
    with open(trace, "w") as f:
        f.write('{"traceEvents": [%s]}' % ",".join(KERNEL % (i % 5, 10 * i) for i in range(20000)))
    dash = os.path.join(d, "-dash.json")
    shutil.copyfile(trace, dash)

    # 3: the environment refuses (a file size limit: EFBIG, like ENOSPC)
    out = os.path.join(d, "out.tix")
    expect(args, chk, "an index larger than the file size limit", ("index", trace, "-o", out), 3,
           (out, "File too large"), preexec=small_files)
    chk.check(not [f for f in os.listdir(d) if f.startswith("out.tix")], "no temporary index left",
              str(os.listdir(d)))
    # 2: bad input
    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        f.write("hello")
    expect(args, chk, "not JSON", ("summary", bad, "--no-cache"), 2, (bad, "byte 0"))
    expect(args, chk, "a missing trace", ("summary", os.path.join(d, "nosuch.json")), 2,
           ("nosuch.json", "No such file"))
    # the TUI on a missing file without a terminal: the file is what is wrong
    expect(args, chk, "tix missing.json </dev/null", (os.path.join(d, "missing.json"),), 2,
           ("missing.json", "No such file"), ("needs a terminal",))
    expect(args, chk, "-o into a missing folder", ("index", trace, "-o", os.path.join(d, "no", "x.tix")), 2,
           ("No such file",))
    # 1: usage, naming the argument at fault
    expect(args, chk, "tix summary -dash.json", ("summary", "-dash.json"), 1, ("'-dash.json'", "--"),
           ("'summary'",), cwd=d)
    rc, o, e = tixtest.run([args.tix, "summary", "--no-cache", "--", "-dash.json"], cwd=d)
    chk.check(rc == 0 and "k1" in o, "tix summary -- -dash.json: the file is read", "rc %d %r" % (rc, e[:200]))
    expect(args, chk, "--top with a word", ("summary", trace, "--top", "many"), 1, ("--top",), ("many",))
    expect(args, chk, "an option of another command", ("summary", trace, "--kernel", "k1"), 1,
           ("'--kernel'", "does not apply"), ("'k1'",))
    expect(args, chk, "--step without its value", ("summary", trace, "--step"), 1, ("'--step'",))
    expect(args, chk, "a typo'd command", ("sumary", trace), 1,
           ("unknown command 'sumary'", "did you mean 'summary'"), ("No such file",))
    expect(args, chk, "a typo'd command alone", ("indx",), 1, ("unknown command 'indx'", "did you mean 'index'"))
    expect(args, chk, "two letters swapped", ("shwo",), 1, ("did you mean 'show'",))
    expect(args, chk, "a word far from every command", ("frobnicate",), 1, ("unknown command 'frobnicate'",),
           ("did you mean",))
    # a trace whose name has no dot is still a trace when it exists
    plain = os.path.join(d, "trace")
    shutil.copyfile(trace, plain)
    expect(args, chk, "an existing file named like a command word", ("trace",), 1, ("needs a terminal",),
           ("unknown command",), cwd=d)
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

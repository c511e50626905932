#!/usr/bin/env python3
"""Issue 9, item 7: fatal signals.  Before: a .tix truncated under the TUI (or
under tix show)
killed it with SIGBUS, no message, and the terminal was left raw; so did a
SIGSEGV or SIGABRT (-icanon -echo); and on a file system without fallocate
a full disk was a SIGBUS while the index was written.  Now:
  - the TUI on an index that another program truncates: one line naming
    the index, exit 2, the terminal back in cooked mode (tmux); the CLI
    (tix show into a pipe it has filled): one line, exit 2;
  - SIGSEGV and SIGABRT sent to the TUI: it still dies of them, with the
    terminal restored (tmux);
  - TIX_NO_FALLOCATE=1 (the path of file systems without fallocate) on a
    full 2 MB tmpfs: exit 3, one line, no SIGBUS (needs root to mount;
    skipped otherwise).
Skips the TUI cases (not the test) without tmux.

    rel_signals.py --tix TIX --work DIR
"""
import os
import shutil
import signal
import subprocess
import time

import reltest
from reltest import tixtest
from rel_full_disk import mount, umount
from rel_tui import Tmux


def tix_pid(tm):
    """The pid of tix, the child of the pane's shell."""
    shell = tm("display-message", "-p", "-t", tm.t, "#{pane_pid}").strip()
    try:
        with open("/proc/%s/task/%s/children" % (shell, shell)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except (OSError, ValueError):
        return None


def run_tui(tm, n, d, args, index, stty):
    """Starts the TUI on index in a new tmux session; returns once it drew."""
    old = tm.t if n else None
    tm.t = "sig%d" % n
    tm("new-session", "-d", "-s", tm.t, "-x", "100", "-y", "30", "-c", d,
       "env TERM=xterm-256color LANG=C.UTF-8 %s %s; echo TIX-EXITED-$?; stty -a > %s; sleep 600"
       % (args.tix, index, stty))
    if old:
        tm("kill-session", "-t", old)
    tm("set-option", "-g", "status", "off")
    return tm.wait(lambda s: "q:quit" in s or "TIX-EXITED" in s, 60)


def cooked(stty):
    """Whether `stty -a` (written after tix ended) shows canonical mode and echo."""
    for _ in range(100):
        if os.path.exists(stty) and os.path.getsize(stty) > 0:
            break
        time.sleep(0.05)
    try:
        words = open(stty).read().split()
    except OSError:
        return False, "no stty output"
    return "icanon" in words and "echo" in words, " ".join(w for w in words if "icanon" in w or "echo" == w.lstrip("-"))


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("rel_signals")
    d = os.path.join(args.work, "signals")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    src = tixtest.generate(os.path.join(args.work, "signals-src.json"), "--steps", 3, "--layers", 4)

    # the CLI on an index another program truncates while it reads: tix show
    # fills the pipe and waits; the index is cut; the next rows it reads are
    # gone: one line, exit 2, no SIGBUS
    index = os.path.join(d, "cli-cut.tix")
    rc, out, err = tixtest.tix(args, "index", src, "-o", index)
    if chk.check(rc == 0, "the CLI's index builds", err[:200]):
        p = subprocess.Popen([args.tix, "show", index, "--kernel", ".", "--limit", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = p.stdout.read(4096)
        time.sleep(0.3)  # tix is blocked on the full pipe by now
        os.truncate(index, 4096)
        rest = p.stdout.read()
        err = p.stderr.read().decode("utf-8", "replace")
        rc = p.wait()
        lines = [l for l in err.split("\n") if l.strip() and not reltest.is_hint(l)]
        chk.check(len(first) == 4096 and len(rest) > 0, "tix show was mid-way when the index was cut",
                  "%d + %d bytes" % (len(first), len(rest)))
        chk.check(rc == 2 and len(lines) == 1 and "changed while tix read it" in lines[0],
                  "the CLI on an index truncated while it reads: one line, exit 2",
                  "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[-300:]))

    if shutil.which("tmux"):
        tm = Tmux("tix-rel-signals-%d" % os.getpid())
        try:
            # the index truncated under the TUI
            index = os.path.join(d, "cut.tix")
            rc, out, err = tixtest.tix(args, "index", src, "-o", index)
            chk.check(rc == 0, "the index builds", err[:200])
            stty = os.path.join(d, "stty-bus.txt")
            ok, s = run_tui(tm, 0, d, args, index, stty)
            if chk.check(ok and "TIX-EXITED" not in s, "the TUI starts", s[-300:]):
                os.truncate(index, 4096)
                for k in ("Down", "Enter", "End", "Enter", "Home", "Tab"):
                    tm("send-keys", "-t", tm.t, k)
                    time.sleep(0.05)
                ok, s = tm.wait(lambda s: "TIX-EXITED" in s, 20)
                s = s.replace("\n", "")  # a long path wraps
                # where it wraps depends on the path's length, and a space
                # at the wrap is lost: compare without blanks
                flat = "".join(s.split())
                chk.check(ok and "TIX-EXITED-2" in s and "cut.tix:theindexfilechangedwhiletixhaditopen" in flat,
                          "a truncated index: one line naming it, exit 2", s.strip()[-400:])
                good, what = cooked(stty)
                chk.check(good, "a truncated index: the terminal is back in cooked mode", what)
            # SIGSEGV and SIGABRT: die of them, the terminal restored
            index = os.path.join(d, "ok.tix")
            tixtest.tix(args, "index", src, "-o", index)
            for n, sig in enumerate((signal.SIGSEGV, signal.SIGABRT), 1):
                stty = os.path.join(d, "stty-%d.txt" % sig)
                ok, s = run_tui(tm, n, d, args, index, stty)
                pid = tix_pid(tm)
                if not chk.check(ok and pid, "%s: the TUI starts" % sig.name, s[-300:]):
                    continue
                os.kill(pid, sig)
                ok, s = tm.wait(lambda s: "TIX-EXITED" in s, 20)
                chk.check(ok and ("TIX-EXITED-%d" % (128 + sig)) in s, "%s: tix dies of it" % sig.name,
                          s.strip()[-300:])
                good, what = cooked(stty)
                chk.check(good, "%s: the terminal is back in cooked mode" % sig.name, what)
            # SIGTERM to a TUI that built its index itself: the handlers that
            # remove a named temporary (index/outfile.c) are gone once it is
            # renamed, so that ncurses' own restores the terminal (issue 19)
            fresh = os.path.join(d, "fresh.json")
            shutil.copyfile(src, fresh)
            for f in (fresh + ".tix",):
                if os.path.exists(f):
                    os.remove(f)
            stty = os.path.join(d, "stty-term.txt")
            ok, s = run_tui(tm, 3, d, args, fresh, stty)
            pid = tix_pid(tm)
            if chk.check(ok and pid, "SIGTERM: the TUI starts on a trace it indexes", s[-300:]):
                os.kill(pid, signal.SIGTERM)
                ok, s = tm.wait(lambda s: "TIX-EXITED" in s, 20)
                good, what = cooked(stty)
                chk.check(ok and good, "SIGTERM after the TUI built its index: it ends, the terminal in cooked mode",
                          what + " " + s.strip()[-200:])
        finally:
            tm("kill-server")
    else:
        chk.skip("the TUI cases", "tmux is not installed")

    # a full disk where fallocate is missing
    fs = os.path.join(args.work, "signals-tmpfs")
    umount(fs)
    ok, why = mount(fs, "2m")
    if not ok:
        chk.skip("full disk without fallocate", why)
        return chk.done()
    try:
        with open(os.path.join(fs, "filler"), "wb") as f:  # not a byte left
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        out = os.path.join(fs, "out.tix")
        env = dict(os.environ, TIX_NO_FALLOCATE="1")
        # --max-temp past the free space: the build meets the full disk itself
        # (by default it stops at its bound first: rel_temp)
        rc, o, err = tixtest.run([args.tix, "index", src, "-o", out, "--max-temp", "1T"], env=env, timeout=120)
        one, line = reltest.one_line(err)
        chk.check(rc == 3 and one and "No space left on device" in line,
                  "without fallocate, a full disk: exit 3, one line, no SIGBUS",
                  "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:300]))
        chk.check(os.listdir(fs) == ["filler"], "without fallocate: no temporary file left", str(os.listdir(fs)))
    finally:
        umount(fs)
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

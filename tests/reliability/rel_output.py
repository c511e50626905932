#!/usr/bin/env python3
"""Issue 19, item 2: writing files never destroys what it should not.

- `-o` onto what is not a regular file: a character device (a /dev/null of
  the test's own, mknod) and a FIFO are written through and stay what they
  are; the names of descriptors (/dev/fd/1, /proc/self/fd/1, a link to one)
  write through that descriptor (a pipe, a file opened with > or >>); a
  block device, a socket and a directory are refused with one line (exit
  1); an index is never written through anything but a file.
- An output that is the input (the trace, by device and inode: itself, a
  hard link, a symbolic link; the index an export reads, and its trace) is
  refused with exit 1 before anything is written.
- Indexes and exports get the mode the umask gives, never more than the
  trace's own read permission (chmod 600 trace -> 0600 index), never more
  than the file they replace; the cache folder is made 0700.
- SIGINT, SIGTERM, SIGHUP during an export or an index build leave no
  OUT.tmpXXXXXX (also with the named temporary of file systems without
  O_TMPFILE, TIX_NO_TMPFILE=1).
Before: as root, `-o NULLDEV` turned the device into a regular file; `tix
index t.json -o t.json` replaced the trace; every index was 0644; 11 of 12
kills left a temporary.  The test makes its own nodes in its own folder
(it never writes the machine's /dev); the device checks need root (skipped
otherwise).

    rel_output.py --tix TIX --work DIR
"""
import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import time

import reltest
from reltest import tixtest


def run(args, argv, umask=None, **kw):
    pre = (lambda: os.umask(umask)) if umask is not None else None
    p = subprocess.run([args.tix] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       preexec_fn=pre, **kw)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def one_line(chk, what, rc, err, want=1, must=()):
    one, line = reltest.one_line(err)
    return chk.check(rc == want and one and all(m in line for m in must), "%s: exit %d, one line" % (what, want),
                     "rc %d %s err %r" % (rc, tixtest.describe_crash(rc), err[:300]))


def specials(args, chk, d, t):
    out_ok = lambda b: json.loads(b.decode())["traceEvents"]  # noqa: E731
    if os.geteuid() == 0:
        null = os.path.join(d, "null")
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        rc, o, e = run(args, ["export", t, "-o", null])
        chk.check(rc == 0 and stat.S_ISCHR(os.lstat(null).st_mode),
                  "export -o CHARDEV (1,3): written through, still a character device",
                  "rc %d %r mode %o" % (rc, e[:200], os.lstat(null).st_mode))
        rc, o, e = run(args, ["index", t, "-o", null])
        one_line(chk, "index -o CHARDEV: refused", rc, e, 1, ("not a regular file",))
        chk.check(stat.S_ISCHR(os.lstat(null).st_mode), "... and still a character device", "")
        blk = os.path.join(d, "blk")
        os.mknod(blk, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
        rc, o, e = run(args, ["export", t, "-o", blk])
        one_line(chk, "export -o BLOCKDEV: refused", rc, e, 1, ("block device",))
        chk.check(stat.S_ISBLK(os.lstat(blk).st_mode), "... and still a block device", "")
    else:
        chk.skip("character and block devices", "mknod needs root")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    with open(os.path.join(d, "from-fifo.json"), "wb") as sink:
        reader = subprocess.Popen(["cat", fifo], stdout=sink)  # a file: a pipe could fill and stall it
        rc, o, e = run(args, ["export", t, "-o", fifo])
        try:
            reader.wait(timeout=20)
        except subprocess.TimeoutExpired:  # the FIFO was renamed over: nobody writes it
            reader.kill()
            reader.wait()
    got = open(os.path.join(d, "from-fifo.json"), "rb").read()
    try:
        n = len(out_ok(got))
    except ValueError:
        n = -1
    chk.check(rc == 0 and n > 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode),
              "export -o FIFO: its reader gets the JSON, still a FIFO", "rc %d n %d %r" % (rc, n, e[:200]))
    rc, o, e = run(args, ["index", t, "-o", fifo])
    one_line(chk, "index -o FIFO: refused without waiting for a reader", rc, e, 1, ("not a regular file",))
    sock_path = os.path.join(d, "sock")
    s = socket.socket(socket.AF_UNIX)
    # bound by a name relative to its folder: a socket's path is at most 107
    # bytes, which a checkout in a deep folder passes
    here = os.getcwd()
    os.chdir(d)
    try:
        s.bind("sock")
    finally:
        os.chdir(here)
    rc, o, e = run(args, ["export", t, "-o", sock_path])
    one_line(chk, "export -o SOCKET: refused", rc, e, 1, ("socket",))
    s.close()
    rc, o, e = run(args, ["export", t, "-o", d])
    one_line(chk, "export -o DIRECTORY: refused", rc, e, 1, ("directory",))
    link = os.path.join(d, "to-stdout")
    os.symlink("/proc/self/fd/1", link)
    for name in ("/dev/fd/1", "/proc/self/fd/1", link):
        rc, o, e = run(args, ["export", t, "-o", name])
        try:
            n = len(out_ok(o))
        except ValueError:
            n = -1
        chk.check(rc == 0 and n > 0 and "wrote" in e and b"wrote" not in o,
                  "export -o %s into a pipe: the JSON on stdout, the report on stderr" % name,
                  "rc %d n %d err %r" % (rc, n, e[:200]))
    chk.check(os.path.islink(link), "... the link stays a link", "")
    rc, o, e = run(args, ["index", t, "-o", "/dev/fd/1"])
    one_line(chk, "index -o /dev/fd/1: refused", rc, e, 1, ("descriptor",))
    red = os.path.join(d, "redirected.json")
    with open(red, "wb") as f:
        f.write(b"KEEP\n")
    with open(red, "ab") as f:
        p = subprocess.run([args.tix, "export", t, "-o", "/dev/fd/1"], stdout=f, stderr=subprocess.PIPE)
    data = open(red, "rb").read()
    chk.check(p.returncode == 0 and data.startswith(b"KEEP\n{") and len(out_ok(data[5:])) > 0,
              "export -o /dev/fd/1 >> FILE: appended through the descriptor", repr(data[:40]))


def inputs(args, chk, d, t):
    before = open(t, "rb").read()
    ino = os.stat(t).st_ino
    hard = os.path.join(d, "hard.json")
    os.link(t, hard)
    sym = os.path.join(d, "sym.json")
    os.symlink(os.path.basename(t), sym)
    rc, o, e = run(args, ["index", t])
    cases = [("index t.json -o t.json", ["index", t, "-o", t]),
             ("export t.json --step 1 -o t.json", ["export", t, "--step", "1", "-o", t]),
             ("export t.json -o HARDLINK", ["export", t, "-o", hard]),
             ("export t.json -o SYMLINK", ["export", t, "-o", sym]),
             ("export SYMLINK -o t.json", ["export", sym, "-o", t]),
             ("index SYMLINK -o t.json", ["index", sym, "-o", t]),
             ("export t.json.tix -o t.json (the index's trace)", ["export", t + ".tix", "-o", t]),
             ("export t.json.tix -o t.json.tix", ["export", t + ".tix", "-o", t + ".tix"])]
    for what, argv in cases:
        rc, o, e = run(args, argv)
        one_line(chk, what + ": refused", rc, e, 1, ("input",))
        chk.check(open(t, "rb").read() == before and os.stat(t).st_ino == ino and os.path.islink(sym),
                  "... the trace is as it was (same bytes, same inode)", "")
    left = [f for f in os.listdir(d) if ".tmp" in f]
    chk.check(not left, "no temporary file left by the refusals", repr(left))


def modes(args, chk, d, t):
    cases = [(0o600, 0o022, 0o600), (0o640, 0o022, 0o640), (0o644, 0o077, 0o600), (0o666, 0o000, 0o644),
             (0o604, 0o022, 0o604)]
    for trace_mode, umask, want in cases:
        sub = os.path.join(d, "mode-%o-%o" % (trace_mode, umask))
        os.makedirs(sub)
        tt = os.path.join(sub, "t.json")
        shutil.copyfile(t, tt)
        os.chmod(tt, trace_mode)
        rc, o, e = run(args, ["summary", tt], umask=umask)
        beside = os.stat(tt + ".tix").st_mode & 0o777 if os.path.exists(tt + ".tix") else None
        out = os.path.join(sub, "out.json")
        rc2, o, e2 = run(args, ["export", tt, "-o", out], umask=umask)
        exp = os.stat(out).st_mode & 0o777 if os.path.exists(out) else None
        rc3, o, e3 = run(args, ["index", tt, "-o", os.path.join(sub, "given.tix")], umask=umask)
        given = os.stat(os.path.join(sub, "given.tix")).st_mode & 0o777 if rc3 == 0 else None
        # an export is as writable as the umask says; an index never by others
        want_export = (0o666 & ~umask) & (0o600 | (trace_mode & 0o044))
        chk.check(rc == 0 and beside == want and given == want and exp == want_export,
                  "trace %04o, umask %03o: index beside %04o, -o index %04o, export %04o" %
                  (trace_mode, umask, want, want, want_export),
                  "got beside %r given %r export %r (%s %s %s)" %
                  (beside and oct(beside), given and oct(given), exp and oct(exp), e[:100], e2[:100], e3[:100]))
    # replacing a file never makes it more readable
    sub = os.path.join(d, "replace")
    os.makedirs(sub)
    out = os.path.join(sub, "out.json")
    with open(out, "w") as f:
        f.write("old")
    os.chmod(out, 0o600)
    rc, o, e = run(args, ["export", t, "-o", out], umask=0o022)
    chk.check(rc == 0 and os.stat(out).st_mode & 0o777 == 0o600, "an export over a 0600 file stays 0600",
              oct(os.stat(out).st_mode))
    # the cache folder: a trace whose name is too long for an index beside it
    cache = os.path.join(d, "fresh-cache")
    tt = os.path.join(d, "n250-".ljust(245, "x") + ".json")
    shutil.copyfile(t, tt)
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    rc, o, e = run(args, ["summary", tt], env=env, umask=0o022)
    tixdir = os.path.join(cache, "tix")
    m = os.stat(tixdir).st_mode & 0o777 if os.path.isdir(tixdir) else None
    chk.check(rc == 0 and m == 0o700 and os.listdir(tixdir), "the cache folder is made 0700 (umask 022)",
              "rc %d mode %r %r" % (rc, m and oct(m), e[:200]))


def signals(args, chk, d):
    big = tixtest.generate(os.path.join(d, "big.json"), "--target-mb", 40 if not os.environ.get("TIX_TEST_TRIM") else 12)
    rc, o, e = run(args, ["index", big])
    outdir = os.path.join(d, "out")
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "x.json")
    t0 = time.time()
    rc, o, e = run(args, ["export", big, "-o", out])
    span = max(time.time() - t0, 0.05)
    os.remove(out)
    rng = random.Random(19)
    left_any = []
    rounds = 0
    for env_extra in ({}, {"TIX_NO_TMPFILE": "1"}):
        env = dict(os.environ, **env_extra)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            for cmd in (["export", big, "-o", out], ["index", big, "-o", os.path.join(outdir, "x.tix")]):
                for _ in range(4):
                    p = subprocess.Popen([args.tix] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=env)
                    time.sleep(rng.uniform(0.0, span * 1.2))
                    p.send_signal(sig)
                    p.wait(timeout=120)
                    rounds += 1
                    left = [f for f in os.listdir(outdir) if ".tmp" in f]
                    if left:
                        left_any.append("%s %s %s: %s" % (env_extra, sig.name, cmd[0], left))
                    for f in left:
                        os.remove(os.path.join(outdir, f))
    chk.check(not left_any, "%d interrupted exports and builds (SIGINT, SIGTERM, SIGHUP at random moments, "
              "unnamed and named temporaries): no OUT.tmpXXXXXX left" % rounds, "; ".join(left_any[:4]))


def main():
    args, chk, d = reltest.start(__doc__, "rel_output", "output")
    t = tixtest.generate(os.path.join(d, "t.json"), "--steps", 3, "--layers", 4)
    os.makedirs(os.path.join(d, "special"))
    specials(args, chk, os.path.join(d, "special"), t)
    sub = os.path.join(d, "inputs")
    os.makedirs(sub)
    tt = os.path.join(sub, "t.json")
    shutil.copyfile(t, tt)
    inputs(args, chk, sub, tt)
    os.makedirs(os.path.join(d, "modes"))
    modes(args, chk, os.path.join(d, "modes"), t)
    signals(args, chk, d)
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Issue 19, items 3 and 8: a planted index is not trusted; the cache folder
is used only when it is the user's and nobody else can write it.  Two (and
three) users, with setpriv (util-linux) and unprivileged uids; needs root
(skipped, 77, otherwise).

- root reads alice's trace beside which alice left an index (tampered: a
  kernel renamed PLANTED): root does not use it, does not replace it, builds
  its own in root's cache and says so once (one line; the next run says
  nothing and reuses its own).  bob, reading the same trace, does the same.
- alice reads root's trace with the index root wrote beside it: used.
- alice's own index that others can write (0664, a group member changed
  it): not trusted, rebuilt, and the new one is not group-writable.
- the cache: /tmp/tix-UID (TMPDIR's, HOME and XDG_CACHE_HOME unset) made
  0777 by bob with a planted index inside, and an XDG_CACHE_HOME/tix of
  alice's own but 0777: not used (one line), the index built for the
  command alone, nothing written there.  A relative XDG_CACHE_HOME is
  ignored, as the XDG spec says.
Before: the planted index was used (PLANTED in the summary; Time% 26049.4
in the issue's report), and a 0777 cache folder of another user trusted.

    rel_planted.py --tix TIX --work DIR --craft TIX_CRAFT
"""
import os
import shutil
import subprocess
import tempfile

import reltest
from reltest import tixtest

ALICE, BOB = 4711, 4712


def trace(path):
    ev = ['{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100000}']
    for i in range(40):
        ev.append('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":2,'
                  '"args":{"correlation":%d}}' % (10 + 100 * i, i + 1))
        ev.append('{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"correlation":%d}}'
                  % ("gemm_honest" if i % 2 else "copy_kernel", 15 + 100 * i, 40 + i, i + 1))
    with open(path, "w") as f:
        f.write('{"traceEvents": [%s]}' % ",\n".join(ev))


class Users:
    def __init__(self, args, root):
        self.args, self.root = args, root

    def env(self, uid, **extra):
        e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        if uid != 0:
            e["HOME"] = os.path.join(self.root, "home-%d" % uid)
        for k, v in extra.items():  # None: unset
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
        return e

    def run(self, uid, argv, cwd=None, **extra):
        pre = [] if uid == 0 else ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--"]
        p = subprocess.run(pre + [self.args.tix] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=self.env(uid, **extra), cwd=cwd or self.root, timeout=120)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def mkdir(path, uid, mode):
    os.makedirs(path, exist_ok=True)
    os.chown(path, uid, uid)
    os.chmod(path, mode)


def roots_trace(root, sub, name):
    """A trace of root's (0644) in a folder of root's (0755) that others read."""
    d = os.path.join(root, sub)
    mkdir(d, 0, 0o755)
    t = os.path.join(d, name)
    trace(t)
    os.chmod(t, 0o644)
    return t


def plant(args, good, bad, uid, mode=0o644):
    """A copy of the index good at bad, its kernel renamed PLANTED (checksums
    fixed), owned by uid."""
    subprocess.run([args.craft, good, bad, "gemm_honest", "PLANTED_EVL"], check=True)
    os.chown(bad, uid, uid)
    os.chmod(bad, mode)


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--craft", required=True, help="tests/core's tix_craft")
    args = tixtest.setup(p.parse_args())
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("SKIP: needs root and setpriv (util-linux)")
        return reltest.SKIP
    chk = tixtest.Checker("rel_planted")
    # a folder every user can reach (the build tree may sit in a private home)
    root = tempfile.mkdtemp(prefix="tix-rel-planted-", dir="/tmp")
    os.chmod(root, 0o755)
    try:
        return scenario(args, chk, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def scenario(args, chk, root):
    bindir = os.path.join(root, "bin")
    os.makedirs(bindir)
    shutil.copy2(args.tix, os.path.join(bindir, "tix"))
    args.tix = os.path.join(bindir, "tix")
    u = Users(args, root)
    for uid in (ALICE, BOB):
        mkdir(os.path.join(root, "home-%d" % uid), uid, 0o700)
    rootcache = os.path.join(root, "rootcache")
    os.makedirs(rootcache)

    # alice's trace, and the index she leaves beside it (tampered)
    alice = os.path.join(root, "alice")
    mkdir(alice, ALICE, 0o755)
    t = os.path.join(alice, "t.json")
    trace(t)
    os.chown(t, ALICE, ALICE)
    honest = os.path.join(root, "honest.json")
    trace(honest)
    rc, want, e = u.run(0, ["summary", honest, "--no-cache"])
    rc, o, e = u.run(ALICE, ["index", t])
    chk.check(rc == 0 and os.stat(t + ".tix").st_uid == ALICE, "alice indexes her trace", e[:200])
    plant(args, t + ".tix", t + ".planted", ALICE)
    os.replace(t + ".planted", t + ".tix")
    planted = open(t + ".tix", "rb").read()
    rc, o, e = u.run(ALICE, ["summary", t])
    chk.check(rc == 0 and "PLANTED" in o, "(alice herself sees what she wrote)", o[:200])

    # root reads it
    for n in (1, 2):
        rc, o, e = u.run(0, ["summary", t], XDG_CACHE_HOME=rootcache)
        lines = [l for l in e.split("\n") if l.strip() and not reltest.is_hint(l)]
        note = n == 1 and len(lines) == 1 and "not used" in lines[0] and "uid %d" % ALICE in lines[0]
        chk.check(rc == 0 and "PLANTED" not in o and o == want and (note if n == 1 else not lines),
                  "root, run %d: alice's index not used, root's own answer%s" % (n, ", said once" if n == 1 else
                                                                                ", nothing said"),
                  "rc %d stderr %r out %r" % (rc, e[:300], o[:200]))
    st = os.stat(t + ".tix")
    chk.check(open(t + ".tix", "rb").read() == planted and st.st_uid == ALICE,
              "alice's index is not replaced (same bytes, still hers)", "uid %d" % st.st_uid)
    cached = os.listdir(os.path.join(rootcache, "tix")) if os.path.isdir(os.path.join(rootcache, "tix")) else []
    chk.check(len(cached) == 1, "root's index is in root's cache", repr(cached))

    # bob reads it too
    rc, o, e = u.run(BOB, ["summary", t])
    bobcache = os.path.join(root, "home-%d" % BOB, ".cache", "tix")
    chk.check(rc == 0 and "PLANTED" not in o and o == want and "not used" in e and os.path.isdir(bobcache) and
              os.stat(bobcache).st_uid == BOB and os.stat(bobcache).st_mode & 0o777 == 0o700,
              "bob: alice's index not used, his own in his cache (0700)", "rc %d %r" % (rc, e[:300]))

    # root's index beside root's trace: alice uses it
    rt = roots_trace(root, "rootdir", "r.json")
    rc, o, e = u.run(0, ["index", rt], XDG_CACHE_HOME=rootcache)
    rc, o, e = u.run(ALICE, ["info", rt])
    chk.check(rc == 0 and "beside the trace" in o and not e.strip(), "alice uses the index root wrote beside root's trace",
              "rc %d %r %r" % (rc, o[:200], e[:200]))

    # alice's own index, but group-writable and changed
    mine = os.path.join(alice, "mine.json")
    trace(mine)
    os.chown(mine, ALICE, ALICE)
    rc, o, e = u.run(ALICE, ["index", mine])
    plant(args, mine + ".tix", mine + ".planted", ALICE, 0o664)
    os.replace(mine + ".planted", mine + ".tix")
    rc, o, e = u.run(ALICE, ["summary", mine])
    m = os.stat(mine + ".tix").st_mode & 0o777
    chk.check(rc == 0 and "PLANTED" not in o and m & 0o022 == 0,
              "an index others can write: not trusted, rebuilt, not group-writable any more (%04o)" % m,
              "rc %d %r" % (rc, o[:200]))

    # the cache folder: a trace in a folder alice cannot write
    rot = roots_trace(root, "ro", "shared.json")
    # an honest cache first, to learn the index's name there
    honest_tmp = os.path.join(root, "tmp-honest")
    mkdir(honest_tmp, 0, 0o1777)
    rc, o, e = u.run(ALICE, ["summary", rot], HOME=None, TMPDIR=honest_tmp)
    hdir = os.path.join(honest_tmp, "tix-%d" % ALICE)
    names = os.listdir(hdir) if os.path.isdir(hdir) else []
    chk.check(rc == 0 and len(names) == 1 and os.stat(hdir).st_mode & 0o777 == 0o700,
              "HOME and XDG_CACHE_HOME unset: the cache is $TMPDIR/tix-UID, made 0700", "%r %r" % (names, e[:200]))
    if names:
        evil_tmp = os.path.join(root, "tmp-evil")
        mkdir(evil_tmp, 0, 0o1777)
        squat = os.path.join(evil_tmp, "tix-%d" % ALICE)
        mkdir(squat, BOB, 0o777)
        plant(args, os.path.join(hdir, names[0]), os.path.join(squat, names[0]), BOB)
        before = sorted(os.listdir(squat))
        rc, o, e = u.run(ALICE, ["summary", rot], HOME=None, TMPDIR=evil_tmp)
        lines = [l for l in e.split("\n") if l.strip() and not reltest.is_hint(l)]
        chk.check(rc == 0 and "PLANTED" not in o and len(lines) == 1 and "not used as the index cache" in lines[0] and
                  "uid %d" % BOB in lines[0] and sorted(os.listdir(squat)) == before,
                  "a /tmp/tix-UID of bob's (0777, an index planted in it): not used, said once, nothing written there",
                  "rc %d %r out %r" % (rc, e[:300], o[:200]))
    loose = os.path.join(root, "xdg-loose")
    mkdir(loose, ALICE, 0o755)
    mkdir(os.path.join(loose, "tix"), ALICE, 0o777)
    rc, o, e = u.run(ALICE, ["summary", rot], XDG_CACHE_HOME=loose)
    chk.check(rc == 0 and "writable by others" in e and not os.listdir(os.path.join(loose, "tix")),
              "XDG_CACHE_HOME/tix of alice's own but 0777: not used, said why", "rc %d %r" % (rc, e[:300]))
    rc, o, e = u.run(ALICE, ["summary", rot], XDG_CACHE_HOME="relcache", cwd=os.path.join(root, "home-%d" % ALICE))
    home_cache = os.path.join(root, "home-%d" % ALICE, ".cache", "tix")
    chk.check(rc == 0 and not os.path.exists(os.path.join(root, "home-%d" % ALICE, "relcache")) and
              os.path.isdir(home_cache) and os.listdir(home_cache),
              "a relative XDG_CACHE_HOME is ignored: the index goes to ~/.cache/tix", "rc %d %r" % (rc, e[:200]))
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

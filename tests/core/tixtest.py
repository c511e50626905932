"""Small helpers shared by the end-to-end scripts of tests/core (stdlib only).

Every script takes --tix (default: $TIX, else `tix` on PATH) and --work (a
scratch folder in the build tree), prints one line per check and exits 1 when
any check failed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))          # repository root
GEN = os.path.join(SRC, "tests", "gen", "gen_trace.py")
RECOUNT = os.path.join(SRC, "tests", "ref", "recount.py")


class Checker:
    def __init__(self, name):
        self.name = name
        self.failed = 0
        self.passed = 0
        self.t0 = time.time()

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("ok    %s" % what, flush=True)
        else:
            self.failed += 1
            print("FAIL  %s%s" % (what, (": " + detail) if detail else ""), flush=True)
        return ok

    def eq(self, got, want, what):
        return self.check(got == want, what, "got %r, expected %r" % (_short(got), _short(want)))

    def skip(self, what, why):
        print("skip  %s: %s" % (what, why), flush=True)

    def done(self):
        print("%s: %d passed, %d failed (%.1f s)" % (self.name, self.passed, self.failed,
                                                     time.time() - self.t0), flush=True)
        return 1 if self.failed else 0


def _short(v, n=300):
    s = repr(v)
    return v if len(s) <= n else s[:n] + "..."


def arg_parser(desc):
    p = argparse.ArgumentParser(description=desc)
    p.add_argument("--tix", default=os.environ.get("TIX") or shutil.which("tix") or "tix",
                   help="the tix binary (default $TIX)")
    p.add_argument("--work", required=True, help="scratch folder (created, reused)")
    return p


def setup(args):
    """Makes the work folder and points the index cache into it."""
    args.tix = os.path.abspath(args.tix) if os.path.sep in args.tix else args.tix
    os.makedirs(args.work, exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = os.path.join(os.path.abspath(args.work), "xdg-cache")
    return args


def run(cmd, timeout=120, env=None, cwd=None):
    """Runs cmd; returns (rc, stdout, stderr) as text (bytes undecodable kept)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return -999, "", "timed out after %d s" % timeout
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def shared_corpus():
    """The shared corpus beside the checkout (read-only to the tests)."""
    return os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                         "shared"))


def tix(args, *argv, **kw):
    """Runs tix.  A test that lets tix put an index beside a trace of the
    shared corpus (a summary of it without stage()) fails here: the corpus
    is read-only to the tests."""
    corpus = shared_corpus() + os.sep
    beside = [str(a) + ".tix" for a in argv if os.path.realpath(str(a)).startswith(corpus)]
    before = {b for b in beside if os.path.exists(b)}
    res = run([args.tix] + [str(a) for a in argv], **kw)
    wrote = [b for b in beside if b not in before and os.path.exists(b)]
    for b in wrote:
        os.remove(b)
    if wrote:
        raise AssertionError("tix wrote %s into the shared corpus: stage() the trace first" % ", ".join(wrote))
    return res


def generate(path, *opts, truth=None):
    """Runs the generator once; reuses the file when it is already there
    with the same options (a stamp file records them)."""
    stamp = path + ".opts"
    key = " ".join(str(o) for o in opts) + (" truth" if truth else "")
    if os.path.exists(path) and os.path.exists(stamp) and (not truth or os.path.exists(truth)):
        with open(stamp) as f:
            if f.read() == key:
                return path
    cmd = [sys.executable, GEN, "-o", path, "-q"] + [str(o) for o in opts]
    if truth:
        cmd += ["--truth", truth]
    rc, out, err = run(cmd, timeout=300)
    if rc != 0:
        raise RuntimeError("generator failed (%d): %s %s" % (rc, " ".join(cmd), err))
    with open(stamp, "w") as f:
        f.write(key)
    return path


def describe_crash(rc):
    if rc < 0 and rc != -999:
        return "killed by signal %d" % -rc
    return ""


def stage(path, work):
    """A copy of a shared (read-only, never to be written) trace in the work
    folder, so that tix's index cache never writes next to the original."""
    d = os.path.join(work, "staged")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, os.path.basename(path))
    st = os.stat(path)
    if not (os.path.exists(dst) and os.path.getsize(dst) == st.st_size):
        shutil.copyfile(path, dst)
    return dst

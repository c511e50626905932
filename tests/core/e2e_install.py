#!/usr/bin/env python3
"""Issue 10, item 10 (c): `cmake --install BUILD --prefix P` into a temporary
prefix puts in place bin/tix, share/man/man1/tix.1, the bash and zsh
completions (equal to what the installed `tix completion` prints) and, in a
build with CUPTI, lib/tix/libtixcap.so; the installed tix runs (--version,
help); its man page renders without warnings (`man -l`, `groff -ww`); the
installed `tix capture` uses the installed library, also once the prefix is
moved (without CUPTI: it says this build has none).  Skipped (77) when
neither man nor groff is there to render the page, after the other checks
passed.

    e2e_install.py --tix TIX --work DIR --build BUILD --cmake CMAKE --cupti ON|OFF
"""

import glob
import os
import re
import shutil
import sys

import tixtest


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--build", required=True, help="the build folder to install from")
    p.add_argument("--cmake", default=shutil.which("cmake") or "cmake")
    p.add_argument("--cupti", default="OFF", help="ON when the build found CUPTI")
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_install")
    work = os.path.abspath(args.work)
    prefix = os.path.join(work, "prefix")
    shutil.rmtree(prefix, ignore_errors=True)
    cupti = args.cupti.upper() in ("ON", "1", "TRUE", "YES")

    rc, out, err = tixtest.run([args.cmake, "--install", args.build, "--prefix", prefix], timeout=300)
    if not chk.check(rc == 0, "cmake --install BUILD --prefix P: exit 0", (out + err).strip()[-600:]):
        return chk.done()
    files = ["bin/tix", "share/man/man1/tix.1", "share/bash-completion/completions/tix",
             "share/zsh/site-functions/_tix"]
    for f in files:
        chk.check(os.path.isfile(os.path.join(prefix, f)), "installed %s" % f)
    tix = os.path.join(prefix, "bin", "tix")
    chk.check(os.access(tix, os.X_OK), "bin/tix is executable")
    libs = glob.glob(os.path.join(prefix, "lib*", "**", "libtixcap.so"), recursive=True)
    if cupti:
        chk.check(len(libs) == 1, "installed libtixcap.so (a build with CUPTI)", repr(libs))
    else:
        chk.check(not libs, "no libtixcap.so without CUPTI", repr(libs))

    rc, ver, err = tixtest.run([tix, "--version"])
    rc2, ver2, _ = tixtest.tix(args, "--version")
    chk.check(rc == 0 and ver.startswith("tix ") and ver == ver2,
              "the installed tix --version runs, the build's version", "%r %r %s" % (ver, ver2, err))
    rc, h, _ = tixtest.run([tix, "help", "summary"])
    chk.check(rc == 0 and h.startswith("usage: tix summary"), "the installed tix help summary")
    for shell, f in (("bash", "share/bash-completion/completions/tix"),
                     ("zsh", "share/zsh/site-functions/_tix")):
        rc, script, _ = tixtest.run([tix, "completion", shell])
        with open(os.path.join(prefix, f)) as fh:
            chk.check(rc == 0 and script and fh.read() == script,
                      "the installed %s completion is what the installed tix prints" % shell)

    # tix capture finds the installed library (relative to bin/tix), also
    # once the prefix has moved; the program it runs sees it in
    # CUDA_INJECTION64_PATH
    env = dict(os.environ)
    env.pop("TIX_CAPTURE_LIB", None)
    moved = os.path.join(work, "moved")
    shutil.rmtree(moved, ignore_errors=True)
    shutil.copytree(prefix, moved, symlinks=True)
    for root in (prefix, moved):
        t = os.path.join(root, "bin", "tix")
        seen = os.path.join(work, "injection.txt")
        if os.path.exists(seen):
            os.unlink(seen)
        rc, out, err = tixtest.run([t, "capture", "-o", os.path.join(work, "cap"), "--", "sh", "-c",
                                    'printf %s "$CUDA_INJECTION64_PATH" > "$0"', seen], env=env)
        label = "the installed" if root == prefix else "a moved install's"
        if cupti:
            inj = open(seen).read() if os.path.exists(seen) else ""
            real_root = os.path.realpath(root)
            chk.check(rc == 0 and inj.startswith(real_root + os.sep) and inj.endswith("/libtixcap.so"),
                      "%s tix capture loads its own libtixcap.so" % label,
                      "rc %d, CUDA_INJECTION64_PATH=%r, %s" % (rc, inj, err.strip()[:300]))
        else:
            chk.check(rc == 2 and "without CUPTI" in err,
                      "%s tix capture: exit 2, this build has no CUPTI" % label,
                      "rc %d %s" % (rc, err.strip()[:300]))

    # the man page renders without warnings
    page = os.path.join(prefix, "share", "man", "man1", "tix.1")
    rendered = False
    if shutil.which("groff"):
        rc, out, err = tixtest.run(["groff", "-man", "-Tutf8", "-ww", "-z", page])
        chk.check(rc == 0 and not err.strip(), "groff -man -Tutf8 -ww -z tix.1: no warning", err[:500])
        rendered = True
    if shutil.which("man"):
        menv = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0", LC_ALL="C.UTF-8")
        rc, out, err = tixtest.run(["man", "-l", page], env=menv)
        out = re.sub(r".\x08", "", out)   # overstrike bold and underline
        chk.check(rc == 0 and not err.strip() and "tix summary" in out and "EXIT STATUS" in out,
                  "man -l share/man/man1/tix.1 renders, nothing on stderr", err[:500])
        # MANPATH from the prefix: `man tix` finds the installed page
        rc, out2, err = tixtest.run(["man", "-M", os.path.join(prefix, "share", "man"), "tix"], env=menv)
        out2 = re.sub(r".\x08", "", out2)
        chk.check(rc == 0 and out2 == out, "man -M P/share/man tix: the installed page", err[:300])
        rendered = True
    if not rendered:
        chk.done()
        if chk.failed:
            return 1
        print("skipped: neither man nor groff is installed (scripts/setup.sh installs "
              "groff-base and man-db); the man page was not rendered")
        return 77
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

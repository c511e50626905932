#!/usr/bin/env python3
"""Docs that match the program (issue 20 item 7): every example of tix's
output in README.md and docs/*.md is what tix prints today, run here on the
bundled sample (samples/) and on traces the example says how to make.

    docs_output.py --tix TIX --work DIR [--update]

An example is a fenced code block whose first line is a command, `$ tix ...`
(any shell line: `$ tix show ... | head -12`).  Each `$ ` line is run with sh
in the work folder, tix first on PATH; what follows it up to the next `$ `
line (a blank line before it left out) is its output: stdout, then stderr
(where tix writes hints and warnings, after the rows a terminal shows
first).  A comment on the command
line that names a file and the generator makes that file before the run:

    $ tix diff samples/glm5_decode.json.gz fixed.json.gz   # fixed.json.gz: tests/gen/gen_trace.py --fixed

The TUI's screens in docs/TUI.md are golden screens (tests/tui, tui_docs_screens).
Left out, and said so where they are: docs/PERFORMANCE.md (dated measurements
of the benchmark on the project's machines) and docs/CAPTURE.md's GPU runs.

--update writes the outputs into the documents (review them with git diff).
The documented command, which also refreshes the TUI's screens:
    cmake --build build --target docs_update
"""

import difflib
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

import tixtest

DOCS = ["README.md"] + sorted(os.path.relpath(p, tixtest.SRC)
                              for p in glob.glob(os.path.join(tixtest.SRC, "docs", "*.md")))
SKIP = {"docs/PERFORMANCE.md", "docs/CAPTURE.md"}
MAKE = re.compile(r"#\s*(\S+):\s*tests/gen/gen_trace\.py(.*)$")


def examples(text):
    """[(first line index, last line index + 1, [(command, comment, output lines)])] of text's
    example blocks (line indices inside the fence)."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        body = lines[i + 1:j]
        if body and re.match(r"\$ (tix|\S+=\S+ tix)\b", body[0]):
            cmds = []
            for ln in body:
                if ln.startswith("$ "):
                    m = re.match(r"\$ (.*?)(\s+#.*)?$", ln)
                    cmds.append([m.group(1), m.group(2) or "", []])
                else:
                    cmds[-1][2].append(ln)
            out.append((i + 1, j, cmds))
        i = j + 1
    return out


def run(args, cmd, comment, env):
    m = MAKE.search(comment)
    if m:
        path = os.path.join(args.work, m.group(1))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        opts = shlex.split(m.group(2))
        stamp = path + ".opts"
        if not (os.path.exists(stamp) and open(stamp).read() == " ".join(opts)):
            cwd = os.getcwd()
            os.chdir(args.work)
            try:
                tixtest.generate(path, *opts)
            finally:
                os.chdir(cwd)
            with open(stamp, "w") as f:
                f.write(" ".join(opts))
    p = subprocess.run(["sh", "-c", cmd], cwd=args.work, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    out = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
    return out.rstrip("\n").split("\n") if out.strip() else []


def main():
    p = tixtest.arg_parser(__doc__.split("\n\n")[0])
    p.add_argument("--update", action="store_true", help="write the outputs into the documents")
    args = tixtest.setup(p.parse_args())
    args.work = os.path.abspath(args.work)
    os.makedirs(os.path.join(args.work, "samples"), exist_ok=True)
    for f in glob.glob(os.path.join(tixtest.SRC, "samples", "*.json.gz")):
        dst = os.path.join(args.work, "samples", os.path.basename(f))
        if not os.path.exists(dst) or os.path.getsize(dst) != os.path.getsize(f):
            shutil.copyfile(f, dst)
    bindir = os.path.join(args.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    link = os.path.join(bindir, "tix")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.abspath(args.tix), link)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LANG="C.UTF-8",
               LC_ALL="C.UTF-8", TZ="UTC", XDG_CACHE_HOME=os.path.join(args.work, "xdg-cache"))
    chk = tixtest.Checker("docs_output")
    n = 0
    for doc in DOCS:
        if doc in SKIP:
            continue
        path = os.path.join(tixtest.SRC, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        blocks = examples(text)
        done = []
        for first, end, cmds in blocks:  # in the document's order: an example may make a file the next uses
            new = []
            for cmd, comment, want in cmds:
                n += 1
                got = run(args, cmd, comment, env)
                while want and not want[-1]:  # the blank line between two commands
                    want = want[:-1]
                new += ([""] if new else []) + ["$ " + cmd + comment] + got
                if args.update:
                    continue
                if got == want:
                    chk.check(True, "%s: $ %s" % (doc, cmd))
                else:
                    d = "".join(difflib.unified_diff([w + "\n" for w in want], [g + "\n" for g in got],
                                                     doc, "tix today"))
                    chk.check(False, "%s: $ %s" % (doc, cmd), "the example is not what it prints:\n" + d)
            done.append((first, end, new))
        for first, end, new in reversed(done):  # from the end: line numbers stay true
            lines[first:end] = new
        if args.update and blocks:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            print("wrote %s (%d examples)" % (doc, len(blocks)))
    if args.update:
        print("docs_output: %d commands run; review the documents with git diff" % n)
        return 0
    rc = chk.done()
    if rc:
        print("If the change is meant, refresh them:\n"
              "  cmake --build build --target docs_update   (then review git diff README.md docs)")
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Issue 10, item 10: the help, the docs and the completion agree with the CLI.

  (a) for every command, every option (and each value of an a|b|c option)
      that `tix help COMMAND` lists is accepted by that command on a real
      trace; it appears in docs/CLI.md (a command's own options in its
      synopsis line, with the same values) and in docs/tix.1 (in the
      command's section; the common ones under COMMON OPTIONS); bash
      completion offers it (and its values) after `tix COMMAND -`, and the
      zsh script has it in the command's branch.  The other way round:
      every --option in CLI.md's synopsis block and in tix.1's SYNOPSIS is
      in the help of the command on that line.  tix.1 names tix's version.
  (b) `tix help X` and `tix X --help` print the same (for the TUI:
      `tix help tui` and `tix TRACE --help`), with a usage line and at least
      one example; `tix help` is `tix --help`, listing every command.
  (d) bash completion, sourced in `bash -c` with COMP_WORDS set, completes
      `tix su` to summary, `tix summary t.json --by ` to kernel step op rank,
      and traces (not other files) where a trace goes.

The options the lead is implementing are in PENDING: while one is refused it
is reported as pending, not a failure; once it is accepted the test fails
until it is taken out of PENDING, so the list stays as short as the work left.

    e2e_help.py --tix TIX --work DIR
"""

import os
import re
import shutil
import subprocess
import sys

import tixtest

# Expected to be accepted once implemented; (command, what is tried).
# (summary --by rank, --jobs and --rank-from came with issue 11.)
PENDING = set()

REFUSED = re.compile(r"does not apply here|unknown option|unknown or incomplete option|"
                     r"unknown --format|--by takes|--timeunit takes|unexpected argument|"
                     r"needs a value|takes a number|unknown command")

COMMANDS = ["tui", "index", "summary", "show", "export", "diff", "findings", "info", "dump", "capture",
            "completion", "help"]


# ---- the help, parsed ----

OPT_LINE = re.compile(r"^  (-[-\w]+)(?:, (-[-\w]+))?(?: (\S+))?(?:\s{2,}|$)")


def parse_help(text):
    """{"usage": [lines], "opts": [(name, alias, arg, common)], "examples": [...]}"""
    h = {"usage": [], "opts": [], "examples": []}
    section = "usage"
    for line in text.splitlines():
        if not line.strip():
            if section == "usage":
                section = "about"
            continue
        if line in ("options:", "common options:", "examples:"):
            section = line[:-1]
            continue
        if section == "usage":
            u = line[len("usage:"):] if line.startswith("usage:") else line
            if u.startswith("        ") and h["usage"]:   # a wrapped line goes on
                h["usage"][-1] += " " + u.strip()
            else:
                h["usage"].append(u.strip())
        elif section in ("options", "common options"):
            m = OPT_LINE.match(line)
            if m:
                h["opts"].append((m.group(1), m.group(2), m.group(3), section == "common options"))
        elif section == "examples":
            h["examples"].append(line.strip())
    return h


def words_of(arg):
    return arg.split("|") if arg and "|" in arg else None


# ---- the docs ----

def cli_synopsis(src):
    """The lines of docs/CLI.md's first code block."""
    with open(os.path.join(src, "docs", "CLI.md")) as f:
        text = f.read()
    m = re.search(r"^```\n(.*?)^```", text, re.S | re.M)
    return text, m.group(1).splitlines() if m else []


def synopsis_command(line):
    """'tix summary TRACE ...' -> 'summary'; 'tix TRACE...' -> 'tui'."""
    w = line.split()
    if len(w) < 2 or w[0] != "tix":
        return None
    return w[1] if w[1] in COMMANDS else "tui"


def man_text(src):
    """docs/tix.1 with the roff escapes that matter here undone."""
    with open(os.path.join(src, "docs", "tix.1")) as f:
        t = f.read()
    t = re.sub(r"\\f[BIRP]", "", t)
    t = t.replace("\\-", "-").replace("\\&", "").replace("\\~", " ").replace("\\%", "")
    return t


def man_sections(t):
    """{"tix summary": text of its .SS, ..., ".SH COMMON OPTIONS": ..., ".SH SYNOPSIS": ...}"""
    out = {}
    parts = re.split(r"^(\.S[HS] .*)$", t, flags=re.M)
    for i in range(1, len(parts) - 1, 2):
        head = parts[i]
        m = re.match(r'\.SS "?(tix(?: \w+)?)', head)
        if m:
            name = m.group(1)
            if name == "tix TRACE" or head.startswith('.SS "tix TRACE'):
                name = "tix tui"
            out[name] = parts[i + 1]
        else:
            out[head.strip('"')] = parts[i + 1]
    return out


# ---- bash completion ----

def bash_complete(script, cwd, words):
    """COMPREPLY for the command line words (the last one being completed)."""
    prog = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tix; '
            'printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "-c", prog, "_", script] + words, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return [w for w in p.stdout.decode().split("\n") if w], p.stderr.decode()


def zsh_branch(script, cmd):
    m = re.search(r"^\t\(%s\)\n(.*?)^\t\t;;" % re.escape(cmd), script, re.S | re.M)
    return m.group(1) if m else ""


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_help")
    src = tixtest.SRC
    work = os.path.abspath(args.work)
    trace = tixtest.generate(os.path.join(work, "t.json"), "--steps", "2", "--layers", "2",
                             "--graph", "--capture-out", os.path.join(work, "cap.json"))
    trace2 = os.path.join(work, "t2.json")
    shutil.copyfile(trace, trace2)
    cap = os.path.join(work, "cap.json")
    tixtest.generate(os.path.join(work, "r.json"), "--ranks", "2", "--steps", "2", "--layers", "2")
    ranks2 = [os.path.join(work, "r-rank%d.json" % r) for r in range(2)]

    helps = {}
    for c in COMMANDS:
        rc, out, err = tixtest.tix(args, "help", c)
        if chk.check(rc == 0 and out.startswith("usage: ") and not err,
                     "tix help %s: exit 0, a usage line, nothing on stderr" % c,
                     "rc %d %r" % (rc, err[:200])):
            helps[c] = (out, parse_help(out))

    # ---- (b) help X == X --help, an example; the overview ----
    for c, (out, h) in helps.items():
        if c == "tui":
            form = [trace, "--help"]
        elif c == "help":
            form = ["help", "--help"]
        else:
            form = [c, "--help"]
        rc, out2, err = tixtest.tix(args, *form)
        chk.check(rc == 0 and out2 == out, "tix %s == tix help %s" % (" ".join(
            "TRACE" if f == trace else f for f in form), c), "rc %d, %r" % (rc, out2[:200]))
        rc, out3, _ = tixtest.tix(args, *(form[:-1] + ["-h"]))
        chk.check(rc == 0 and out3 == out, "tix %s -h == tix help %s" % (c, c))
        chk.check(any(e.startswith("tix ") or "tix " in e for e in h["examples"]),
                  "tix help %s: at least one example" % c, repr(h["examples"]))
        chk.check(any(o[0] == "--help" for o in h["opts"]), "tix help %s lists --help" % c)
    rc, ov, _ = tixtest.tix(args, "help")
    rc2, ov2, _ = tixtest.tix(args, "--help")
    chk.check(rc == 0 and rc2 == 0 and ov == ov2, "tix help == tix --help")
    chk.check(all(re.search(r"^  %s " % re.escape(c), ov, re.M) for c in COMMANDS[1:]),
              "the overview lists every command")
    rc, _, err = tixtest.tix(args, "help", "sumary")
    chk.check(rc == 1 and "did you mean 'summary'" in err, "tix help sumary: exit 1, did you mean")

    # ---- (a) every option the help lists is accepted ----
    out_json = os.path.join(work, "out.json")
    base = {
        "tui": [trace], "index": [trace], "summary": [trace],
        "show": [trace, "--kernel", "."], "export": [trace, "-o", out_json],
        "diff": [trace, trace2], "findings": [trace], "info": [trace], "dump": [trace + ".tix"],
        "capture": [],
        "completion": ["bash"], "help": [],
    }
    rc, csv, _ = tixtest.tix(args, "summary", trace, "--format", "csv")
    sort_key = csv.splitlines()[0].split(",")[1] if rc == 0 and csv else "total_ns"
    sample = {
        "--step": "0", "--top": "3", "--limit": "2", "--jobs": "2", "--sort": sort_key,
        "--kernel": ".", "--range": "0:1000", "--step-marker": "ProfilerStep",
        "--graph-capture": cap, "--delay": "0", "--duration": "1", "--nvtx": "step",
        "--flush-ms": "100", "--wait": "0", "--peak-bw": "4.8T", "--peak-flops": "bf16=989T", "--max-temp": "4G",
    }
    sample["--section"] = "STEPS"  # tix dump
    pending_seen = set()

    def value_for(c, name):
        if name == "--sort" and c == "diff":
            return "total_ns_delta"  # a key of diff's CSV header
        if name in ("-o", "--output"):
            return {"index": os.path.join(work, "out.tix"), "export": out_json,
                    "capture": os.path.join(work, "capture-out")}.get(c)
        return sample.get(name)

    def command_line(c, opt_argv):
        """The whole command line that tries opt_argv on command c."""
        if c == "capture":
            return ["capture"] + opt_argv + ["--", "true"]
        argv = list(base[c])
        if c == "show" and opt_argv[0] == "--kernel":
            argv = [trace]                  # the required option is the one tried
        if c == "export" and opt_argv[0] in ("-o", "--output"):
            argv = [trace]
        if c == "tui" and opt_argv[0] == "--diff":
            argv = [trace, trace2]          # --diff takes the two traces it compares
        if c == "summary" and (opt_argv[:2] == ["--by", "rank"] or opt_argv[0] in ("--jobs", "--rank-from")):
            # two ranks of one run, which every --rank-from rule tells apart
            argv = ranks2 + ([] if opt_argv[0] == "--by" else ["--by", "rank"])
        return ([] if c == "tui" else [c]) + argv + opt_argv

    def try_opt(c, opt_argv, key):
        full = command_line(c, opt_argv)
        rc, out, err = tixtest.tix(args, *full, timeout=120)
        refused = bool(REFUSED.search(err))
        if c == "tui":   # no terminal here: refused only by name, else "needs a terminal"
            ok = not refused and (rc == 0 or "needs a terminal" in err)
        elif c == "capture":  # 2: this build has no CUPTI (it parsed the options first)
            ok = not refused and rc in (0, 2)
        else:
            ok = not refused and rc == 0
        what = "tix %s: %s accepted" % (c, " ".join(os.path.basename(a) for a in opt_argv))
        if (c, key) in PENDING:
            pending_seen.add((c, key))
            if ok:
                chk.check(False, what + " (it is: take %r out of PENDING)" % ((c, key),))
            else:
                last = err.strip().splitlines()[-1:] or ["rc %d" % rc]
                print("pend  %s: not yet (%s)" % (what, last[0]), flush=True)
            return
        chk.check(ok, what, "rc %d: %s" % (rc, err.strip()[:300]))

    for c, (_, h) in helps.items():
        for name, alias, arg, common in h["opts"]:
            for spelled in [name] + ([alias] if alias else []):
                if spelled in ("--help", "-h"):
                    continue      # (b) ran them
                if arg is None:
                    try_opt(c, [spelled], name)
                elif words_of(arg):
                    for w in words_of(arg):
                        key = "%s %s" % (name, w)
                        try_opt(c, [spelled, w], key if (c, key) in PENDING else name)
                elif value_for(c, name) is not None:
                    try_opt(c, [spelled, value_for(c, name)], name)
                else:
                    chk.check(False, "tix %s %s: the test has no sample value for it" % (c, spelled))
        if c == "completion":
            for w in ("bash", "zsh"):
                rc, out, err = tixtest.tix(args, "completion", w)
                chk.check(rc == 0 and out and not err, "tix completion %s: exit 0" % w)
    # the combination the synopsis promises: --step with --by op
    try_opt("summary", ["--by", "op", "--step", "0"], "--by op --step")
    # and the other way: an option is declared once, by the help's rows (the
    # parsers' getopt tables are built from them), so one that a command's
    # help does not list is refused by it, even where another command has it
    # (tix info --format, tix index --no-cache, tix diff --graph-capture were taken
    # though no help listed them)
    parsed_by_args = ("index", "summary", "show", "export", "diff", "findings", "info")
    for c in parsed_by_args:
        own = {n for (name, alias, _, _) in helps[c][1]["opts"] for n in (name, alias) if n}
        for o in sorted({name for (_, h) in helps.values() for (name, _, _, _) in h["opts"]} - own):
            if o in ("--diff", "--help-keys", "--version", "--section", "--delay", "--duration", "--nvtx",
                     "--cuda-profiler-api", "--flush-ms", "--wait"):
                continue  # the TUI's, dump's and capture's own parsers
            arg = next(a for (_, h) in helps.values() for (n, _, a, _) in h["opts"] if n == o)
            val = [] if arg is None else [words_of(arg)[0] if words_of(arg) else (value_for(c, o) or "1")]
            rc, out, err = tixtest.tix(args, *([c] + list(base[c]) + [o] + val), timeout=120)
            chk.check(rc == 1 and "does not apply here" in err,
                      "tix %s %s: refused, not in its help" % (c, o), "rc %d: %s" % (rc, err.strip()[:200]))
    for c, key in sorted(PENDING - pending_seen):
        chk.check(False, "PENDING names %s %s, which the help does not list" % (c, key))

    # capture's options are read from the same table (cli/capture.c): one
    # that tix help capture does not list is refused in one line
    if "capture" in helps:
        rc, _, err = tixtest.tix(args, "capture", "--bogus", "--", "true")
        chk.check(rc == 1 and err.count("\n") == 1 and "unknown option '--bogus'" in err,
                  "tix capture --bogus: exit 1, one line", err[:200])

    # ---- (a) in docs/CLI.md, both ways ----
    cli_md, syn = cli_synopsis(src)
    syn_by_cmd = {}
    for line in syn:
        c = synopsis_command(line)
        if c:
            syn_by_cmd.setdefault(c, []).append(line)
    for c, (_, h) in helps.items():
        lines = " ".join(syn_by_cmd.get(c, []))
        chk.check(c in syn_by_cmd or c == "help" and "tix help" in cli_md,
                  "docs/CLI.md's synopsis has tix %s" % c)
        for name, alias, arg, common in h["opts"]:
            if common or c == "tui":
                chk.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(name), cli_md) is not None,
                          "docs/CLI.md names %s" % name)
                continue
            chk.check(re.search(r"(^|[\s\[])%s\b" % re.escape(name), lines) is not None,
                      "docs/CLI.md: tix %s's synopsis has %s" % (c, name))
            if words_of(arg):
                got = set()
                for m in re.finditer(r"%s ([\w|]+)" % re.escape(name), lines):
                    got |= set(m.group(1).split("|"))
                chk.eq(sorted(got), sorted(words_of(arg)),
                       "docs/CLI.md: tix %s %s's values" % (c, name))
    for line in syn:
        c = synopsis_command(line)
        if c not in helps:
            continue
        known = {o[0] for o in helps[c][1]["opts"]} | {o[1] for o in helps[c][1]["opts"] if o[1]}
        for opt in re.findall(r"(?<![\w-])(--?[a-z][-a-z]*)", line):
            chk.check(opt in known, "docs/CLI.md synopsis: tix %s %s is in tix help %s" % (c, opt, c))

    # ---- (a) in docs/tix.1 ----
    man = man_text(src)
    secs = man_sections(man)
    common_sec = secs.get(".SH COMMON OPTIONS", "")
    man_syn = secs.get(".SH SYNOPSIS", "")
    rc, ver, _ = tixtest.tix(args, "--version")
    m = re.search(r'^\.TH TIX 1 \S+ "tix ([^"]+)"', man, re.M)
    chk.check(m is not None and ver.strip() == "tix " + m.group(1),
              "docs/tix.1's .TH names this tix's version", "%r vs %r" % (m and m.group(1), ver))
    for c, (_, h) in helps.items():
        sec = secs.get("tix " + c)
        if not chk.check(sec is not None, "docs/tix.1 has a section for tix %s" % c):
            continue
        if c != "tui":
            chk.check(re.search(r'^\.SY "?tix %s\b' % c, man_syn, re.M) is not None,
                      "docs/tix.1's SYNOPSIS has tix %s" % c)
        for name, alias, arg, common in h["opts"]:
            where = common_sec if common else sec
            label = "COMMON OPTIONS" if common else "tix %s" % c
            for spelled in [name] + ([alias] if alias and alias.startswith("--") else []):
                chk.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(spelled), where) is not None,
                          "docs/tix.1 (%s) has %s" % (label, spelled))
            if words_of(arg) and not common:
                m = re.search(r'%s "? *([\w|]+)' % re.escape(name), sec)
                chk.eq(sorted(m.group(1).split("|")) if m else None, sorted(words_of(arg)),
                       "docs/tix.1: tix %s %s's values" % (c, name))
    # tix.1's SYNOPSIS, the other way round
    for block in re.findall(r"^\.SY (.*?)^\.YS", man_syn, re.S | re.M):
        first = block.split("\n")[0].strip('"')
        w = first.split()
        c = w[1] if len(w) > 1 else "tui"
        if c not in helps:
            continue
        known = {o[0] for o in helps[c][1]["opts"]} | {o[1] for o in helps[c][1]["opts"] if o[1]}
        for opt in re.findall(r"(?<![\w-])(--?[a-z][-a-z]*)", block):
            chk.check(opt in known, "docs/tix.1 SYNOPSIS: tix %s %s is in tix help %s" % (c, opt, c))

    # ---- (a) completion: bash offers each option and value; zsh has them ----
    rc, bash_script, _ = tixtest.tix(args, "completion", "bash")
    rc2, zsh_script, _ = tixtest.tix(args, "completion", "zsh")
    script = os.path.join(work, "tix.bash")
    with open(script, "w") as f:
        f.write(bash_script)
    cdir = os.path.join(work, "complete")
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(os.path.join(cdir, "folder"), exist_ok=True)
    for n in ("t.json", "t.json.tix", "a.json.gz", "b.tix", "c.tixj", "notes.txt"):
        open(os.path.join(cdir, n), "a").close()
    if shutil.which("bash"):
        for c, (_, h) in helps.items():
            pre = ["tix"] if c == "tui" else ["tix", c]
            if c not in ("tui", "capture", "completion", "help"):
                pre.append("t.json")
            got, err = bash_complete(script, cdir, pre + ["-"])
            for name, alias, arg, common in h["opts"]:
                for spelled in [name] + ([alias] if alias and alias.startswith("--") else []):
                    chk.check(spelled in got, "bash: tix %s - offers %s" % (c, spelled),
                              "got %r %s" % (got, err.strip()[:200]))
                if words_of(arg):
                    vals, err = bash_complete(script, cdir, pre + [name, ""])
                    chk.eq(sorted(vals), sorted(words_of(arg)), "bash: tix %s %s <TAB>" % (c, name))
        # (d)
        got, err = bash_complete(script, cdir, ["tix", "su"])
        chk.eq(got, ["summary"], "bash: tix su -> summary")
        got, err = bash_complete(script, cdir, ["tix", "summary", "t.json", "--by", ""])
        chk.eq(got, ["kernel", "step", "op", "rank"], "bash: tix summary t.json --by -> kernel step op rank")
        got, _ = bash_complete(script, cdir, ["tix", "summary", ""])
        chk.eq(sorted(got), ["a.json.gz", "b.tix", "c.tixj", "folder", "t.json"],
               "bash: tix summary <TAB> -> traces and folders, not notes.txt, a trace once "
               "(not also t.json.tix, its index)")
        got, _ = bash_complete(script, cdir, ["tix", "diff", "t.json", "--graph-capture", ""])
        chk.check("notes.txt" not in got, "bash: a value that is typed gets no file names")
        got, _ = bash_complete(script, cdir, ["tix", "capture", "-o", "x", "--", "tru"])
        chk.check("true" in got, "bash: tix capture ... -- tru -> a command", repr(got[:10]))
        for by in ("kernel", "step", "op"):   # --sort: the keys tix itself lists
            rc, _, err = tixtest.tix(args, "summary", trace, "--by", by, "--sort", "bogus")
            m = re.search(r"--sort takes one of: (.*)", err)
            want = m.group(1).split() if m else None
            got, _ = bash_complete(script, cdir, ["tix", "summary", "t.json", "--by", by, "--sort", ""])
            chk.eq(got, want, "bash: tix summary --by %s --sort <TAB> -> the view's keys" % by)
        got, _ = bash_complete(script, cdir, ["tix", "help", "sh"])
        chk.eq(got, ["show"], "bash: tix help sh -> show")
    else:
        chk.skip("bash completion", "no bash")
    for c, (_, h) in helps.items():
        branch = zsh_branch(zsh_script, c)
        if not chk.check(branch, "zsh: a branch for %s" % c):
            continue
        for name, alias, arg, common in h["opts"]:
            for spelled in [name] + ([alias] if alias else []):
                chk.check("%s[" % spelled in branch, "zsh: tix %s has %s" % (c, spelled))
            if words_of(arg):
                chk.check("(%s)" % " ".join(words_of(arg)) in branch, "zsh: tix %s %s's values" % (c, name))
    if shutil.which("zsh"):
        zs = os.path.join(work, "_tix")
        with open(zs, "w") as f:
            f.write(zsh_script)
        rc, _, err = tixtest.run(["zsh", "-n", zs])
        chk.check(rc == 0, "zsh -n accepts the zsh script", err.strip()[:300])
    else:
        chk.skip("zsh -n", "no zsh")
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

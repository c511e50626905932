#!/usr/bin/env python3
"""Issue 19, item 1: no terminal or clipboard injection anywhere.

- CSV escapes control bytes as text output does and neutralises cells a
  spreadsheet would run (=, +, -, @, tab, CR at the start: a leading ').
- Text and JSON output escape C1 controls and the bidi overrides and
  isolates (U+202A-E, U+2066-9); JSON keeps the same string value.
- Strings read from a .tix (the step rule, warnings, meta, names) are made
  printable by every face: a crafted index (tix_craft: strings rewritten in
  place, checksums fixed) writes no escape through info, summary's "steps
  found by" or the warnings on open.
- y / Y in the TUI (tmux, with `script` logging every byte tix writes):
  the copied text has no control byte, the OSC 52 payload is base64 of it,
  nothing is printed outside the TUI (issue 20, item 2: no prompt on the
  main screen), the window title stays, and v shows the text on a page of
  its own.  Skipped (that part) without tmux or script.
Before: CSV wrote raw ESC and =cmd cells; text and JSON wrote U+202E and
C1 raw; info printed a crafted step rule raw; y printed a long name after
endwin, which set the window title.

    rel_inject.py --tix TIX --work DIR --craft TIX_CRAFT
"""
import base64
import json
import os
import re
import shutil
import subprocess
import time

import reltest
from reltest import tixtest

TITLE = "\x1b]0;PWNED-TITLE\x07"
CLIP = "\x1b]52;c;aGFja2Vk\x07"
HOSTILE = [
    # the top kernel: longer than any status line, with a title and a clipboard sequence
    "k" + TITLE + CLIP + "_" + "x" * 200,
    '=HYPERLINK("http://evil/","click")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)",
    "\tTAB-LEAD", "\rCR-LEAD",
    "evil\u202egnp.exe", "\u2066iso\u2069late", "csi\u009b31mred", "del\x7fete",
]
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def trace(path, truncated=False):
    ev = ['{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100000}']
    for i, name in enumerate(HOSTILE):
        for k in range(3):
            c = 100 * i + k + 1
            dur = 5000 if i == 0 else 100 + i
            ev.append('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,'
                      '"dur":2,"args":{"correlation":%d}}' % (10 + c * 10, c))
            ev.append('{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":7,"ts":%d,"dur":%d,'
                      '"args":{"correlation":%d,"grid":[1,1,1],"block":[32,1,1]}}'
                      % (json.dumps(name), 15 + c * 10, dur, c))
        ev.append('{"ph":"X","cat":"cpu_op","name":%s,"pid":1,"tid":1,"ts":%d,"dur":5}'
                  % (json.dumps(name), 20 + 1000 * i))
    text = '{"metaKeyA": "metaValueA", "metaKeyB": "metaValueB", "traceEvents": [%s]}' % ",\n".join(ev)
    if truncated:
        text = text[:-40]
    with open(path, "w") as f:
        f.write(text)


def bad_chars(s):
    """Unsafe characters in s, but newlines (and tabs between CSV/TSV cells)."""
    return sorted(set(UNSAFE.findall(s)))


def raw(args, *argv):
    p = subprocess.run([args.tix] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def faces(args, chk, t, d):
    for argv in (("summary", t), ("summary", t, "--by", "op"), ("summary", t, "--by", "step"),
                 ("show", t, "--kernel", "k"), ("show", t, "--kernel", "evil"),
                 ("summary", t, "--format", "csv"), ("summary", t, "--by", "op", "--format", "csv"),
                 ("show", t, "--kernel", ".", "--format", "csv"),
                 ("summary", t, "--format", "json"), ("summary", t, "--by", "op", "--format", "json"),
                 ("show", t, "--kernel", ".", "--format", "json"),
                 ("findings", t), ("findings", t, "--format", "json"), ("diff", t, t),
                 ("diff", t, t, "--by", "findings"), ("diff", t, t, "--format", "json")):
        rc, out, err = raw(args, *argv)
        chk.check(rc == 0 and not bad_chars(out) and not bad_chars(err),
                  "tix %s: no control, C1 or bidi character reaches stdout or stderr" % " ".join(argv[:1] + argv[2:]),
                  "rc %d unsafe %r %r" % (rc, bad_chars(out), bad_chars(err)))
        if "json" in argv:
            try:
                doc = json.loads(out)
            except ValueError as e:
                chk.check(False, "its JSON parses", str(e))
                continue
            names = set()

            def walk(x):
                if isinstance(x, dict):
                    for v in x.values():
                        walk(v)
                elif isinstance(x, list):
                    for v in x:
                        walk(v)
                elif isinstance(x, str):
                    names.add(x)
            walk(doc)
            # summary lists every name; show one kernel's, findings and diff only
            # what they are about (their strings are checked safe above)
            want = [n for n in HOSTILE[1:] if argv[0] == "summary"]
            chk.check(all(n in names for n in want), "its JSON strings are the names as given (escaped, not changed)",
                      repr([n for n in want if n not in names]))
        if "csv" in argv:
            cells = [c for line in out.split("\n") for c in line.split(",")]
            lead = [c for c in cells if c.startswith('"') and len(c) > 1 and c[1] in "=+-@\t\r"]
            chk.check(not lead and '"\'=HYPERLINK(""http://evil/""' in out,
                      "its CSV cells never start a formula: a leading ' (and no raw tab or CR)", repr(lead[:4]))
            chk.check("\\x1b]0;PWNED-TITLE\\x07" in out or "show" in argv,
                      "its CSV writes ESC as text output does (\\x1b)", out[:300])
    out = os.path.join(d, "export.json")
    rc, o, e = raw(args, "export", t, "-o", out)
    with open(out, encoding="utf-8", errors="replace") as f:
        text = f.read()
    names = {ev.get("name") for ev in json.loads(text)["traceEvents"]} if rc == 0 else set()
    chk.check(rc == 0 and not bad_chars(text) and all(n in names for n in HOSTILE),
              "tix export: no raw unsafe character in the file, the names kept exactly",
              "rc %d unsafe %r missing %r" % (rc, bad_chars(text), [n for n in HOSTILE if n not in names][:3]))


def crafted(args, chk, d):
    t = os.path.join(d, "craft.json")
    trace(t, truncated=True)
    rc, o, e = raw(args, "index", t)
    good = t + ".tix"
    bad = os.path.join(d, "crafted.tix")
    # same-length rewrites of strings the index holds as they are
    def same_length(find, rep):
        """rep (with \\xNN escapes) padded with '!' to the length of find."""
        n = len(re.sub(r"\\x[0-9a-f]{2}", "?", rep))
        assert n <= len(find), (find, rep)
        return find, rep + "!" * (len(find) - n)
    subst = [same_length("ProfilerStep#N", "\\x1b]0;RULE\\x07\\x9b"),
             same_length("trace truncated", "\\x1b]0;WARN\\x07\\x1b[2J"),
             same_length("metaKeyA", "\\x1b]0;KEY"),
             same_length("metaValueA", "\\xe2\\x80\\xae\\x1b]0;VAL"),
             same_length('"metaValueB"', '1}], "x": [')]  # the quotes too: no JSON value left
    p = subprocess.run([args.craft, good, bad] + [x for pair in subst for x in pair], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if not chk.check(rc == 0 and p.returncode == 0, "a crafted index (step rule, warning, meta rewritten)",
                     p.stderr.decode()[:300]):
        return
    for argv in (("info", bad), ("summary", bad, "--by", "step"), ("summary", bad, "--by", "step", "--format", "json"),
                 ("summary", bad), ("summary", bad, "--format", "csv"), ("show", bad, "--kernel", "k")):
        rc, out, err = raw(args, *argv)
        chk.check(rc == 0 and not bad_chars(out) and not bad_chars(err),
                  "crafted index, tix %s: no raw control byte on stdout or stderr" % " ".join(argv[:1] + argv[2:]),
                  "rc %d unsafe %r %r err %r" % (rc, bad_chars(out), bad_chars(err), err[:200]))
        if argv[0] == "info":
            chk.check("\\x1b]0;RULE\\x07" in out and "\\x1b]0;WARN" in out and "\\x1b]0;KEY" in out,
                      "tix info shows the crafted strings escaped (\\x1b)", out[-600:])
    # export writes the trace's top-level values back: a crafted one that is
    # no JSON value (or a string with a raw ESC) goes out as a string
    out = os.path.join(d, "crafted-export.json")
    rc, o, e = raw(args, "export", bad, "-o", out)
    try:
        text = open(out, encoding="utf-8").read() if rc == 0 else ""
        doc = json.loads(text)
    except (OSError, ValueError) as ex:
        text, doc = "", {"error": str(ex)}
    chk.check(rc == 0 and doc.get("metaKeyB") == '1}], "x": [!' and not bad_chars(text)
              and isinstance(doc.get("\x1b]0;KEY!"), str) and "\x1b]0;VAL" in doc.get("\x1b]0;KEY!", ""),
              "tix export of a crafted index: JSON, its broken top-level values as strings, no raw control",
              "rc %d %r %r" % (rc, e[:200], {k: v for k, v in doc.items() if k != "traceEvents"}))


def tui(args, chk, d):
    if not shutil.which("tmux") or not shutil.which("script"):
        chk.skip("y / Y in the TUI", "tmux or script is not installed")
        return
    t = os.path.join(d, "t.json")
    log = os.path.join(d, "tty.log")
    if os.path.exists(log):
        os.remove(log)
    sock = "tix-rel-inject-%d" % os.getpid()
    tm = ["tmux", "-L", sock, "-f", "/dev/null"]

    def tmux(*a):
        return subprocess.run(tm + list(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode(
            "utf-8", "replace")

    def wait(pred, secs=30, joined=False):
        end = time.time() + secs
        s = ""
        while time.time() < end:
            s = tmux("capture-pane", "-p", "-t", "inj", *(["-J"] if joined else []))
            if pred(s):
                return True, s
            time.sleep(0.05)
        return False, s

    cmd = "env TERM=xterm-256color LANG=C.UTF-8 TZ=UTC script -q -f -c '%s %s' %s; echo TIX-EXITED-$?; sleep 600" % (
        args.tix, t, log)
    try:
        tmux("new-session", "-d", "-s", "inj", "-x", "100", "-y", "30", "-c", d, cmd)
        tmux("set-option", "-g", "status", "off")
        tmux("set-option", "-g", "set-titles", "off")
        title0 = tmux("display-message", "-p", "-t", "inj", "#{pane_title}").strip()
        ok, s = wait(lambda s: "q:quit" in s)
        if not chk.check(ok, "the TUI starts", s[-300:]):
            return
        tmux("send-keys", "-t", "inj", "2")
        ok, s = wait(lambda s: "PWNED-TITLE" in s or "PWNED" in s)
        chk.check(ok, "Kernels: the hostile name is on screen, its escapes drawn as '?'", s[-400:])
        for key, what in (("y", "y (the name)"), ("Y", "Y (the row)")):
            tmux("send-keys", "-t", "inj", key)
            ok, s = wait(lambda s: "copied" in s, 10)
            chk.check(ok and "Press Enter" not in s and "Select the text" not in s and "TIX-EXITED" not in s,
                      "%s: the status line says what was copied; no prompt outside the TUI" % what, s[-400:])
            tmux("send-keys", "-t", "inj", "C-l")  # a redraw clears the message
            wait(lambda s: "copied" not in s, 10)
        tmux("send-keys", "-t", "inj", "v")
        # -J joins the rows the terminal wrapped itself: the text is one line
        # to a selection by hand
        row = "k\\x1b]0;PWNED-TITLE\\x07\\x1b]52;c;aGFja2Vk\\x07_" + "x" * 200
        ok, s = wait(lambda s: any(l.endswith(row) for l in s.split("\n")), 10, joined=True)
        chk.check(ok, "v: the copied text on a page of its own, escaped as text output is, one wrapped line", s[-600:])
        tmux("send-keys", "-t", "inj", "q")
        ok, s = wait(lambda s: "q:quit" in s, 10)
        chk.check(ok, "a key closes the page: back in the view", s[-300:])
        title1 = tmux("display-message", "-p", "-t", "inj", "#{pane_title}").strip()
        tmux("send-keys", "-t", "inj", "q")
        ok, s = wait(lambda s: "TIX-EXITED-0" in s, 20)
        chk.check(ok, "q: tix exits 0", s[-300:])
        chk.check("PWNED" not in title1 and title1 == title0, "the window title is unchanged",
                  "%r -> %r" % (title0, title1))
        data = open(log, "rb").read() if os.path.exists(log) else b""
        chk.check(b"\x1b]0;PWNED" not in data and b"\x1b]52;c;aGFja2Vk" not in data,
                  "the name's own OSC 0 and OSC 52 never reach the terminal", repr(data[:200]))
        payloads = re.findall(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", data)
        texts = [base64.b64decode(p).decode("utf-8", "replace") for p in payloads]
        chk.check(len(texts) == 2 and all(not bad_chars(x.replace("\t", " ")) for x in texts) and
                  all("\\x1b]0;PWNED-TITLE\\x07" in x for x in texts) and "\t" in texts[1] and "\t" not in texts[0],
                  "two OSC 52 copies, base64 of the escaped text (the row's cells tab-separated)", repr(texts)[:400])
        chk.check(b"Select the text above" not in data and b"Press Enter" not in data,
                  "nothing printed on the main screen (no by-hand prompt)", "")
    finally:
        tmux("kill-server")


def main():
    args, chk, d = reltest.start(__doc__, "rel_inject", "inject", ("--craft", "tests/core's tix_craft"))
    t = os.path.join(d, "t.json")
    trace(t)
    faces(args, chk, t, d)
    crafted(args, chk, d)
    tui(args, chk, d)
    return chk.done()


if __name__ == "__main__":
    raise SystemExit(main())

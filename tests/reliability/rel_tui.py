#!/usr/bin/env python3
"""The TUI on hostile terminals and traces (issue 5 section 5), driven in
tmux: a trace with zero events, one with CPU ops but zero kernels, a small
decode trace, and one step of 1M kernels; each at 80x24, then 1 row, 10
columns, 1x1, rapid resizes between tiny and large, and keys pressed at the
tiny sizes.  After each change the screen must show some text; after 'q'
tix must exit 0.  Exits 77 (skipped) when tmux is missing.

    rel_tui.py --tix TIX --work DIR [--kernels N]
TIX_TEST_TRIM=1 (set by scripts/ci-asan.sh) makes the big trace 100k kernels.
"""
import os
import shutil
import subprocess
import sys
import time

import reltest
from reltest import tixtest


class Tmux:
    def __init__(self, sock):
        self.base = ["tmux", "-L", sock, "-f", "/dev/null"]
        self.t = "tui"

    def __call__(self, *a):
        r = subprocess.run(self.base + list(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return r.stdout.decode("utf-8", "replace")

    def screen(self):
        return self("capture-pane", "-p", "-t", self.t)

    def wait(self, pred, secs=30):
        end = time.time() + secs
        while time.time() < end:
            s = self.screen()
            if pred(s):
                return True, s
            time.sleep(0.05)
        return False, self.screen()


def has_text(s):
    return bool(s.strip())


def big_trace(path, n):
    """One ProfilerStep with n kernels (and their launches), written fast."""
    if os.path.exists(path) and os.path.exists(path + ".n") and open(path + ".n").read() == str(n):
        return path
    with open(path, "w") as f:
        f.write('{"traceEvents": [\n{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,'
                '"ts":0,"dur":%d}' % (n * 4 + 10))
        names = ["void gemm_kernel<%d>(float*)" % i for i in range(7)]
        for i in range(n):
            f.write(',\n{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":1,'
                    '"args":{"correlation":%d}},\n{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,'
                    '"dur":2,"args":{"correlation":%d,"grid":[%d,1,1],"block":[128,1,1]}}'
                    % (4 * i + 1, i + 1, names[i % 7], 4 * i + 3, i + 1, 1 + i % 5))
        f.write("\n]}\n")
    with open(path + ".n", "w") as f:
        f.write(str(n))
    return path


def main():
    p = tixtest.arg_parser(__doc__)
    p.add_argument("--kernels", type=int, default=100000 if os.environ.get("TIX_TEST_TRIM") else 1000000)
    args = tixtest.setup(p.parse_args())
    if not shutil.which("tmux"):
        print("SKIP: tmux is not installed")
        return reltest.SKIP
    chk = tixtest.Checker("rel_tui")
    d = os.path.join(args.work, "tui")
    os.makedirs(d, exist_ok=True)
    zero = os.path.join(d, "zero.json")
    with open(zero, "w") as f:
        f.write('{"traceEvents": []}')
    cpu = os.path.join(d, "cpu-only.json")
    with open(cpu, "w") as f:
        f.write('{"traceEvents": [{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1,'
                '"dur":100},{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":10,'
                '"args":{"Input Dims":[[2,2],[2,2]]}}]}')
    small = tixtest.generate(os.path.join(d, "small.json"), "--steps", 2, "--layers", 3)
    t0 = time.time()
    big = big_trace(os.path.join(d, "big-%d.json" % args.kernels), args.kernels)
    rc, out, err = tixtest.tix(args, "index", big, timeout=600)
    chk.check(rc == 0, "one step of %d kernels indexes (%.1f s with generation)" % (args.kernels, time.time() - t0),
              err[:200])

    tm = Tmux("tix-rel-tui-%d" % os.getpid())
    try:
        for n, (label, trace) in enumerate((("zero events", zero), ("zero kernels", cpu), ("small trace", small),
                                            ("%d kernels in one step" % args.kernels, big))):
            # the new session first: killing the server's last session ends the
            # server, and a new-session racing that exit fails now and then
            old = tm.t if n else None
            tm.t = "tui%d" % n
            tm("new-session", "-d", "-s", tm.t, "-x", "80", "-y", "24", "-c", d,
               "env TERM=xterm-256color LANG=C.UTF-8 TZ=UTC %s %s; echo TIX-EXITED-$?; sleep 600" % (args.tix, trace))
            if old:
                tm("kill-session", "-t", old)
            tm("set-option", "-g", "status", "off")
            ok, s = tm.wait(lambda s: "q:quit" in s or "TIX-EXITED" in s, 120)
            if not chk.check(ok and "TIX-EXITED" not in s, "%s: the TUI starts at 80x24" % label, s.strip()[-300:]):
                continue
            bad = []
            steps = [("1 row", 80, 1, []), ("10 columns", 10, 24, []), ("1x1", 1, 1, []),
                     ("10x1 with keys", 10, 1, ["Enter", "Down", "c", "s", "Escape", "?", "Escape", "BSpace"]),
                     ("2x3 with keys", 2, 3, ["Enter", "End", "Home", "PageDown", "BSpace"]),
                     ("200x60", 200, 60, ["Enter", "Enter", "BSpace", "BSpace"])]
            for what, w, h, keys in steps:
                tm("resize-window", "-t", tm.t, "-x", str(w), "-y", str(h))
                for k in keys:
                    tm("send-keys", "-t", tm.t, k)
                ok, s = tm.wait(has_text, 10)
                if not ok or "TIX-EXITED" in s:
                    bad.append("%s: %r" % (what, s.strip()[:120]))
            for i in range(40):  # rapid resizes, no waiting
                w, h = ((1, 1), (10, 1), (300, 80), (7, 2), (80, 24))[i % 5]
                tm("resize-window", "-t", tm.t, "-x", str(w), "-y", str(h))
            tm("resize-window", "-t", tm.t, "-x", "80", "-y", "24")
            ok, s = tm.wait(lambda s: "q:quit" in s or "TIX-EXITED" in s, 30)
            if not ok or "TIX-EXITED" in s:
                bad.append("after 40 rapid resizes: %r" % s.strip()[-200:])
            chk.check(not bad, "%s: 1 row, 10 columns, 1x1, keys at tiny sizes, 40 rapid resizes: some text each "
                      "time, still running" % label, "; ".join(bad[:3]))
            tm("send-keys", "-t", tm.t, "q")
            ok, s = tm.wait(lambda s: "TIX-EXITED" in s, 30)
            chk.check(ok and "TIX-EXITED-0" in s, "%s: 'q' exits 0" % label, s.strip()[-300:])
    finally:
        tm("kill-server")
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

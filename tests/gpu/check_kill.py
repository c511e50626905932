# tests/gpu/check_kill.py TIX TIXFILE DUMPFILE PROGRESS KILL_NS FLUSH_MS BUFFER_MB:
# what a capture killed with SIGKILL kept, bounded by clocks: the journal's
# own last write (DUMPFILE, from tixj-dump) against the kill time, and the
# program's per-step end times (PROGRESS).  The loss bound is measured, not
# assumed: how long a CUPTI buffer holding kernel records took to fill in
# this very run (the dump's "buffers:" line, from the journal's BUFFERS
# rows); BUFFER_MB serves only when no such buffer came back.
# Owner: cupti_capture.
import json, re, subprocess, sys
tix, tixfile, dumpfile, progress, kill_ns, flush_ms, buf_mb = sys.argv[1:8]
kill_ns, flush_ms, buf_mb = int(kill_ns), int(flush_ms), int(buf_mb)
steps = [json.loads(l) for l in open(progress) if l.startswith('{"step"')]
last_write, span_ns, mixed, kbufs = 0, None, None, 0
for l in open(dumpfile):
    if l.startswith("last write: realtime "): last_write = int(l.split()[-1])
    m = re.match(r"buffers: \d+, with kernels (\d+) \(with API or NVTX records too: (\d+)\), "
                 r"kernel buffer span max (\d+) ns", l)
    if m: kbufs, mixed, span_ns = int(m.group(1)), int(m.group(2)), int(m.group(3))
p = subprocess.run([tix, "show", tixfile, "--kernel", "unrolled", "--limit", "0", "--format",
                    "json"], capture_output=True, text=True, timeout=120)
if p.returncode: sys.exit("tix show: " + p.stderr.strip())
L = json.loads(p.stdout)["launches"]
if not steps: sys.exit("no step of the program ended before the kill")
errs = []
# 1. the flush thread wrote until the kill: its last write is within two
#    flush periods (and scheduling slack) of it
gap_ms = (kill_ns - last_write) / 1e6
if not last_write or gap_ms > 2 * flush_ms + 200:
    errs.append("last journal write %.0f ms before the kill" % gap_ms)
# 2. what was lost: the records of the buffers CUPTI had not handed back.
#    cuptiActivityFlushAll(0) returns a buffer once every record in it is
#    complete, so on a busy GPU the newest buffer with kernel records waits
#    until it is full: at most one buffer's span, as measured, and a flush
step_ms = (steps[-1]["t_end_ns"] - steps[0]["t_end_ns"]) / 1e6 / max(1, len(steps) - 1)
if kbufs and span_ns is not None:
    lost_ms = span_ns / 1e6 + flush_ms
    how = "measured (%d kernel buffers, %d shared with API/NVTX records, span max %.0f ms)" % (
        kbufs, mixed, span_ns / 1e6)
else: # none came back: a buffer of kernel records alone, 216 B each, 78 a step
    lost_ms = (buf_mb << 20) / (78 * 216) * step_ms + flush_ms
    how = "not measured (no kernel buffer came back): %d MiB of kernel records alone" % buf_mb
ended = [s for s in steps if s["t_end_ns"] <= last_write - lost_ms * 1e6]
want = 78 * len(ended)
if len(L) < want:
    errs.append("%d casts salvaged, want >= %d (78 x %d steps ended %.0f ms before the last "
                "write; bound %s)" % (len(L), want, len(ended), lost_ms, how))
if len(L) > 78 * len(steps) + 78:
    errs.append("%d casts, more than the %d steps run" % (len(L), len(steps)))
torn = [k for k in L if k.get("grid") != [557496, 1, 1] or k.get("block") != [128, 1, 1]]
if torn: errs.append("%d casts with a wrong grid or block" % len(torn))
print("; ".join(errs) if errs else "%d casts salvaged (>= %d: %d steps ended %.0f ms before the "
      "last write, %.0f ms before the kill); loss bound %s" % (len(L), want, len(ended), lost_ms,
                                                             gap_ms, how))
sys.exit(1 if errs else 0)

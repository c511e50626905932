# tests/gpu/check_kill.py TIX TIXFILE DUMPFILE PROGRESS KILL_NS FLUSH_MS BUFFER_MB:
# what a capture killed with SIGKILL kept, bounded by clocks: the journal's
# own last write (DUMPFILE, from tixj-dump) against the kill time, and the
# program's per-step end times (PROGRESS).  Owner: cupti_capture.
import json, subprocess, sys
tix, tixfile, dumpfile, progress, kill_ns, flush_ms, buf_mb = sys.argv[1:8]
kill_ns, flush_ms, buf_mb = int(kill_ns), int(flush_ms), int(buf_mb)
steps = [json.loads(l) for l in open(progress) if l.startswith('{"step"')]
last_write = 0
for l in open(dumpfile):
    if l.startswith("last write: realtime "): last_write = int(l.split()[-1])
p = subprocess.run([tix, "show", tixfile, "--kernel", "unrolled", "--limit", "0", "--format",
                    "json"], capture_output=True, text=True, timeout=120)
if p.returncode: sys.exit("tix show: " + p.stderr.strip())
L = json.loads(p.stdout)["launches"]
errs = []
# 1. the flush thread wrote until the kill: its last write is within two
#    flush periods (and scheduling slack) of it
gap_ms = (kill_ns - last_write) / 1e6
if not last_write or gap_ms > 2 * flush_ms + 200: errs.append("last journal write %.0f ms before the kill" % gap_ms)
# 2. what was lost is bounded by that write and one activity buffer: CUPTI
#    hands back a buffer once every record in it is complete, so a busy GPU's
#    newest buffer waits; per step CUPTI fills 78 kernels x 216 B + 81 calls x
#    40 B + 626 NVTX markers x 56 B (cupti_activity.h record sizes)
step_ms = (steps[-1]["t_end_ns"] - steps[0]["t_end_ns"]) / 1e6 / max(1, len(steps) - 1)
per_step = 78 * 216 + 81 * 40 + 626 * 56
buffer_steps = (buf_mb << 20) / per_step
lost_ms = buffer_steps * step_ms
ended = [s for s in steps if s["t_end_ns"] <= last_write - lost_ms * 1e6]
want = 78 * len(ended)
if len(L) < want: errs.append("%d casts salvaged, want >= %d (78 x %d steps ended before the last write minus one buffer, %.0f ms)" % (len(L), want, len(ended), lost_ms))
if len(L) > 78 * len(steps) + 78: errs.append("%d casts, more than the %d steps run" % (len(L), len(steps)))
torn = [k for k in L if k.get("grid") != [557496, 1, 1] or k.get("block") != [128, 1, 1]]
if torn: errs.append("%d casts with a wrong grid or block" % len(torn))
print("; ".join(errs) if errs else "%d casts salvaged (>= %d: %d steps ended %.0f ms before the last write, %.0f ms before the kill)" % (len(L), want, len(ended), lost_ms, gap_ms))
sys.exit(1 if errs else 0)
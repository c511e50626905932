# tests/gpu/overhead.py KIND W NAME: best-of-3 mean step times of
# W/NAME.plainI.run and W/NAME.capI.run (without and with capture); prints
# one line.  Reported, never a failure of the GPU checks: overhead depends
# on the host as much as on tix.  Owner: cupti_capture.
#   KIND decode: the ratio, against the 1.02 target; launch: the extra cost
#   per launch, against 2 us
import glob, json, math, sys
kind, w, name = sys.argv[1:4]
def best(pattern):
    v = []
    for f in glob.glob(pattern):
        v += [json.loads(l)["mean_step_ms"] for l in open(f) if l.startswith('{"mode"')]
    return min(v) if v else math.nan
p, c = best("%s/%s.plain?.run" % (w, name)), best("%s/%s.cap?.run" % (w, name))
ratio = c / p if p == p and p > 0 else math.nan
if kind == "decode":
    print("ratio %.3f (%.3f -> %.3f ms a step; target 1.02)" % (ratio, p, c))
else:
    per = (c - p) * 1000 / 780
    print("%+.2f us a launch (780 a step, %.3f -> %.3f ms; target 2 us)" % (per, p, c))

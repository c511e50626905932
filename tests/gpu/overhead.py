# tests/gpu/overhead.py KIND W NAME: best-of-3 mean step times of
# W/NAME.plainI.run and W/NAME.capI.run (without and with capture); prints the
# summary, exits 1 when over the bound.  Owner: cupti_capture.
#   KIND decode: ratio <= 1.02; launch: extra cost per launch <= 2 us
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
    print("step %.3f ms -> %.3f ms captured, ratio %.4f" % (p, c, ratio))
    ok = ratio <= 1.02
else:
    per = (c - p) * 1000 / 780
    print("780 tiny launches a step: %.3f ms -> %.3f ms captured, %.2f us more per launch "
          "(bound 2 us), ratio %.3f" % (p, c, per, ratio))
    ok = per <= 2.0
sys.exit(0 if ok else 1)
# tests/gpu/check.py MODE TIX TIXFILE RUNFILE [STEPS]: checks the casts of one
# capture of tests/gpu/e2e_decode.cu (MODE eager or graph; RUNFILE holds the
# program's closing JSON line).  Prints one line; exit 0 when all hold.  Run by
# run_gpu_checks.sh on a GPU, and by CI on captures of the fake libcupti's
# replay of the same program.  Owner: cupti_capture.
import json, re, subprocess, sys
mode, tix, tixfile, runfile = sys.argv[1:5]
run = [json.loads(l) for l in open(runfile) if l.startswith('{"mode"')][-1]
steps = int(sys.argv[5]) if len(sys.argv) > 5 else run["steps"]
def tixjson(*args):
    p = subprocess.run([tix, *args], capture_output=True, text=True, timeout=120)
    if p.returncode:
        sys.exit("tix %s failed: %s" % (args[0], p.stderr.strip()))
    return p.stdout
L = json.loads(tixjson("show", tixfile, "--kernel", "unrolled_elementwise", "--limit", "0",
                       "--format", "json"))["launches"]
errs = []
def err(m):
    if len(errs) < 8: errs.append(m)
if len(L) != 78 * steps:
    err("%d casts, want %d (78 x %d steps)" % (len(L), 78 * steps, steps))
per_step = {}
chain_re = re.compile(r"^layer\.\d\d$")
for k in L:
    per_step[k.get("step")] = per_step.get(k.get("step"), 0) + 1
    if k.get("grid") != [557496, 1, 1] or run["blocks"] != 557496: err("grid %s" % k.get("grid"))
    if k.get("block") != [128, 1, 1]: err("block %s" % k.get("block"))
    if k.get("registers") != run["numRegs"]: err("registers %s != numRegs %s" % (k.get("registers"), run["numRegs"]))
    if not (0.05e6 <= k.get("dur_ns", 0) <= 5e6): err("duration %s ns" % k.get("dur_ns"))
    if k.get("step_name") != "step[DECODE bs=1]": err("step %s" % k.get("step_name"))
    names = [p["name"] for p in k.get("parents", [])]
    if mode == "graph":
        if not k.get("graph_replay"): err("not labelled a graph replay")
        if not k["launch"] or k["launch"]["name"] != "cudaGraphLaunch":
            err("graph launch %s" % (k["launch"] and k["launch"]["name"]))
    else:
        if k.get("graph_replay"): err("eager kernel labelled a graph replay")
        if not k["launch"] or k["launch"]["name"] != "cudaLaunchKernel":
            err("launch %s" % (k["launch"] and k["launch"]["name"])); continue
        if k["launch"]["tid"] != run["tid"]: err("launch tid %s != %s" % (k["launch"]["tid"], run["tid"]))
        tail = names[-5:]
        if len(tail) != 5 or tail[0] != "step[DECODE bs=1]" or not chain_re.match(tail[1]) \
           or tail[2:] != ["aten::to", "aten::_to_copy", "aten::copy_"]:
            err("parents %s" % names)
bad = {s: n for s, n in per_step.items() if n != 78}
if bad: err("steps without 78 casts: %s" % bad)
extra = ""
if mode == "graph":
    # what captured each replayed cast, as the index stores it; the node ids
    # (their low 32 bits are all the index keeps) from the export's args
    want = re.compile(r"^layer\.(\d\d) > aten::to > aten::_to_copy > aten::copy_ > cudaLaunchKernel$")
    chains = set()
    for k in L:
        frames = k.get("captured_under") or []
        chain = " > ".join(f["name"] for f in frames)
        if not want.match(chain) or k.get("capture_match") != "exact":
            err("captured under '%s', match %s" % (chain, k.get("capture_match"))); continue
        if [f["kind"] for f in frames] != ["annotation"] * 4 + ["runtime"]:
            err("frame kinds %s" % [f["kind"] for f in frames])
        chains.add(chain)
    if len(chains) != 78: err("%d distinct capture chains, want 78 (one per layer)" % len(chains))
    ex = tixfile + ".export.json"
    tixjson("export", tixfile, "--kernel", "unrolled_elementwise", "-o", ex)
    d = json.load(open(ex))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    nodes = {e.get("args", {}).get("graph node") for e in ev
             if e.get("cat") == "kernel" and "unrolled_elementwise" in e.get("name", "")}
    if len(nodes) != 78: err("%d distinct graph nodes, want 78" % len(nodes))
    extra = ", %d distinct exact capture chains" % len(chains)
print("; ".join(errs) if errs else "%d casts in %d steps%s" % (len(L), len(per_step), extra))
sys.exit(1 if errs else 0)
#!/usr/bin/env python3
"""Regenerates the seed corpora in fuzz/corpus/ (run from anywhere):

    fuzz/make_corpus.py [--traces ../shared/traces] [--tix build/cli/tix]

json/     per real trace a raw head slice (whole events, original layout)
          and a sample of every (ph, cat) kind it has, cut to ~4 KB; slices
          of a tiny generated trace; hand-made edge cases (edge-*.json)
json_gz/  the json seeds behind a mode byte (see fuzz_json.c): mostly 0
          (whole gzip), a few of each other mode
json_big/ the events of a few json seeds behind fuzz_json_big.c's 4-byte
          header, each layout and size class at least once
tix/      .tix files built by TIX from a few json seeds
names/    kernel names and timestamp texts from the traces, and edge cases
text/     cells for fuzz_text.c (0x1f between cells): hostile names (escape
          sequences, formula starts, bidi overrides, C1, bytes not UTF-8),
          a Y row, a real kernel name
The result stays well under 1 MB.
"""
import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")
LIMIT = 4096


def put(kind, name, data):
    d = os.path.join(CORPUS, kind)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def head_slice(text, limit=LIMIT):
    """The text up to the first whole events past `limit` bytes, closed."""
    key = text.find('"traceEvents"')
    if key < 0:
        return None
    lb = text.index("[", key) + 1
    dec = json.JSONDecoder()
    pos = lb
    end = lb
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            _, pos = dec.raw_decode(text, pos)
        except ValueError:
            break
        end = pos
        if end - key > limit:
            break
    head = text[:key]
    if len(head) > 1500:  # long deviceProperties: keep the start of the object only
        head = "{\n  "
    return head + text[key:end] + "\n]}\n"


def sample(doc, limit=LIMIT):
    """Up to 3 events of each (ph, cat), linked kernels/launches first."""
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    seen = {}
    out = []
    for e in evs:
        if not isinstance(e, dict):
            continue
        k = (e.get("ph"), e.get("cat"))
        if seen.get(k, 0) >= 3:
            continue
        seen[k] = seen.get(k, 0) + 1
        out.append(e)
    # keep a launch with its kernel when both exist
    corr = {}
    for e in evs:
        c = isinstance(e, dict) and isinstance(e.get("args"), dict) and e["args"].get("correlation")
        if c:
            corr.setdefault(c, []).append(e)
    for c, es in corr.items():
        if len(es) >= 2:
            out = es[:2] + out
            break
    lines, size = [], 0
    for e in out:
        s = json.dumps(e)
        if size + len(s) > limit:
            continue
        lines.append("  " + s)
        size += len(s)
    top = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k != "traceEvents" and len(json.dumps(v)) < 200:
                top[k] = v
    body = "{\n" + "".join('  %s: %s,\n' % (json.dumps(k), json.dumps(v)) for k, v in top.items() if k != "baseTimeNanoseconds")
    body += '  "traceEvents": [\n' + ",\n".join(lines) + "\n  ]"
    if isinstance(doc, dict) and "baseTimeNanoseconds" in doc:
        body += ',\n  "baseTimeNanoseconds": %s' % json.dumps(doc["baseTimeNanoseconds"])
    return body + "\n}\n"


EV_LAUNCH = '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":5,"External id":3}}'
EV_KERNEL = ('{"ph":"X","cat":"kernel","name":"void at::native::k<float, 4>(int)","pid":0,"tid":7,"ts":20,"dur":3,'
             '"args":{"correlation":5,"External id":3,"grid":[1,2,3],"block":[128,1,1],"registers per thread":32,'
             '"shared memory":0,"blocks per SM":0.5,"warps per SM":4,"est. achieved occupancy %":12,"device":0,'
             '"context":1,"stream":7}}')
EV_OP = ('{"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":9,"dur":5,"args":{"External id":3,'
         '"Input Dims":[[4,1],[4,1],[]],"Input type":["float","c10::BFloat16","Scalar"],"Input Strides":[[1,1],[1,1],[]],'
         '"Concrete Inputs":["","","False"]}}')
EV_STEP = '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1,"dur":100}'


def trace(*evs, head="", tail=""):
    return '{' + head + '"traceEvents": [' + ",".join(evs) + "]" + tail + "}"


EDGES = {
    "empty.json": "",
    "empty-array.json": "[]",
    "empty-events.json": '{"traceEvents": []}',
    "array-format.json": "[" + ",".join([EV_STEP, EV_OP, EV_LAUNCH, EV_KERNEL]) + "]",
    "array-cpu-functions.json": '[{"name":"aten::mm","ph":"X","ts":1.5,"dur":2.25,"tid":0,"pid":"CPU functions","args":{}}]',
    "story.json": trace(EV_STEP, EV_OP, EV_LAUNCH, EV_KERNEL,
                        head='"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "X"}], ',
                        tail=', "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000'),
    "be-pairs.json": trace('{"ph":"B","name":"outer","pid":1,"tid":1,"ts":1}', '{"ph":"B","name":"inner","pid":1,"tid":1,"ts":2}',
                           '{"ph":"E","pid":1,"tid":1,"ts":3}', '{"ph":"E","pid":1,"tid":1,"ts":4}',
                           '{"ph":"E","pid":1,"tid":2,"ts":5}', '{"ph":"B","name":"open","pid":1,"tid":3,"ts":6}'),
    "flows.json": trace('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{}}',
                        '{"ph":"s","cat":"ac2g","name":"ac2g","id":42,"pid":1,"tid":1,"ts":10}',
                        '{"ph":"X","cat":"kernel","name":"flowk","pid":0,"tid":7,"ts":20,"dur":3,"args":{"grid":[1,1,1]}}',
                        '{"ph":"f","bp":"e","cat":"ac2g","name":"ac2g","id":42,"pid":0,"tid":7,"ts":20}',
                        '{"ph":"t","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":1,"ts":11}'),
    "meta.json": trace('{"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU 0"}}',
                       '{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}}',
                       '{"ph":"M","name":"process_sort_index","pid":0,"args":{"sort_index":5}}',
                       '{"ph":"M","name":"thread_sort_index","pid":0,"tid":7,"args":{"sort_index":"x"}}', EV_KERNEL),
    "instants-counters.json": trace('{"ph":"i","s":"t","name":"mark","pid":1,"tid":1,"ts":5}',
                                    '{"ph":"C","name":"mem","pid":1,"ts":6,"args":{"bytes":10}}',
                                    '{"ph":"b","cat":"async","name":"a","id":1,"pid":1,"ts":1}',
                                    '{"ph":"n","cat":"async","name":"a","id":1,"pid":1,"ts":2}',
                                    '{"ph":"P","name":"sample","pid":1,"tid":1,"ts":3}'),
    "string-ids.json": trace('{"ph":"X","cat":"gpu_user_annotation","name":"ann","pid":"Spans","tid":"Traces","ts":"10.5","dur":"3"}',
                             '{"ph":"X","cat":"kernel","name":"k","pid":"","tid":"","ts":"1e1","dur":"2"}'),
    "times.json": trace('{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1712195495519689.123,"dur":0.001}',
                        '{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":-5,"dur":-1}',
                        '{"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":5.2e3,"dur":1E-3}',
                        '{"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":99999999999999999999999,"dur":1e30}',
                        '{"ph":"X","cat":"kernel","name":"e","pid":0,"tid":7,"ts":0.0005,"dur":5000000.5}'),
    "huge-ids.json": trace('{"ph":"X","cat":"kernel","name":"k","pid":184467440737095516160,"tid":-99999999999999999999,"ts":30,"dur":1,'
                           '"args":{"correlation":184467440737095516160,"External id":1e400,"grid":[99999999999,-1,0.5],"stream":-7}}'),
    "wrong-types.json": trace('{"ph":5,"cat":7,"name":null,"pid":{},"tid":[],"ts":true,"dur":"x","args":[1,2]}',
                              '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"grid":"x","block":{},"correlation":"y"}}',
                              '{"ph":"X"}', '{}'),
    "strings.json": '{"traceEvents": [{"ph":"X","cat":"kernel","name":"esc\\u0001\\u001f\\n\\ud800\\"\\\\x","pid":0,"tid":7,"ts":30,"dur":1,"args":{"note":"caf\u00e9 \u6f22"}}]}',
    "graph.json": trace('{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":9,"graph id":3}}',
                        '{"ph":"X","cat":"kernel","name":"gk","pid":0,"tid":7,"ts":20,"dur":3,"args":{"correlation":9,"graph id":3,"graph node id":4}}',
                        '{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernelEx","pid":1,"tid":1,"ts":30,"dur":2,"args":{"correlation":10}}',
                        '{"ph":"X","cat":"Kernel","name":"triton_poi_fused_0","pid":0,"tid":7,"ts":40,"dur":3,"args":{"correlation":10}}',
                        '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":50,"dur":3,"args":{"bytes":4096,"correlation":11}}',
                        '{"ph":"X","cat":"gpu_memset","name":"Memset","pid":0,"tid":7,"ts":60,"dur":3,"args":{"bytes":8}}',
                        '{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":70,"dur":3}'),
    "sglang-steps.json": trace('{"ph":"X","cat":"user_annotation","name":"step[DECODE bs=1]","pid":1,"tid":1,"ts":1,"dur":50}',
                               '{"ph":"X","cat":"user_annotation","name":"step[EXTEND bs=4]","pid":1,"tid":1,"ts":60,"dur":50}',
                               '{"ph":"X","cat":"python_function","name":"execute_model","pid":1,"tid":1,"ts":61,"dur":4}',
                               EV_LAUNCH, EV_KERNEL),
    "deep-nesting.json": '{"traceEvents": [{"ph":"X","name":"d","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":' + "[" * 300 + "]" * 300 + "}}]}",
    "truncated.json": trace(EV_STEP, EV_OP, EV_LAUNCH, EV_KERNEL)[:-40],
    "trailing.json": trace(EV_KERNEL) + " trailing {",
    "bom.json": "\ufeff" + trace(EV_KERNEL),
    "top-keys-after.json": trace(EV_KERNEL, tail=', "traceName": "x", "deviceProperties": [], "traceEvents2": {}'),
    "invalid-utf8.json": b'{"traceEvents": [{"ph":"X","cat":"kernel","name":"bad\xff\xfe\xc3 \xc0\xaf \xed\xa0\x80","pid":0,"tid":7,"ts":30,"dur":1,"args":{"n":"raw\x01\x1f\x7f\ttab"}}]}',
    "not-array.json": '{"traceEvents": {"a": 1}}',
    "no-events-key.json": '{"schemaVersion": 1, "other": [1,2]}',
    "events-of-scalars.json": '{"traceEvents": [1, "s", null, [1], true]}',
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--traces", default=os.path.join(ROOT, "..", "shared", "traces"))
    p.add_argument("--tix", default=os.path.join(ROOT, "build", "cli", "tix"))
    args = p.parse_args()
    for k in ("json", "json_gz", "json_big", "tix", "names", "text"):
        shutil.rmtree(os.path.join(CORPUS, k), ignore_errors=True)
    names, times = set(), set()
    for f in sorted(os.listdir(args.traces)):
        if not f.endswith(".gz"):
            continue
        text = gzip.open(os.path.join(args.traces, f)).read().decode("utf-8", "surrogateescape")
        base = f.split(".")[0]
        h = head_slice(text)
        if h:
            put("json", "head-%s.json" % base, h)
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        put("json", "sample-%s.json" % base, sample(doc))
        for e in (doc["traceEvents"] if isinstance(doc, dict) else doc):
            if isinstance(e, dict) and e.get("cat") in ("kernel", "Kernel") and len(names) < 60:
                names.add(e.get("name", ""))
        for m in __import__("re").finditer(r'"ts": ?("?[-0-9.eE+]+"?)', text[:200000]):
            if len(times) < 30:
                times.add(m.group(1).strip('"'))
    with tempfile.TemporaryDirectory() as td:
        g = os.path.join(td, "gen.json")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen", "gen_trace.py"), "--steps", "1",
                        "--layers", "2", "--python-frames", "-q", "-o", g], check=True)
        text = open(g).read()
        put("json", "gen-head.json", head_slice(text, 6000))
        put("json", "gen-sample.json", sample(json.loads(text), 6000))
        for e in json.loads(text)["traceEvents"]:
            if e.get("cat") == "kernel" and len(names) < 80:
                names.add(e["name"])
    for name, body in EDGES.items():
        put("json", "edge-" + name, body)
    # json_gz: mode byte 0 for all, modes 1-3 for a few
    jd = os.path.join(CORPUS, "json")
    for f in sorted(os.listdir(jd)):
        data = open(os.path.join(jd, f), "rb").read()
        put("json_gz", f, b"\x00" + data)
    for mode, f in ((0x81, "edge-story.json"), (0x42, "gen-head.json"), (0x03, "edge-be-pairs.json"),
                    (0xC1, "sample-simple_add.json"), (0x0B, "edge-array-format.json")):
        put("json_gz", "mode%02x-%s" % (mode, f), bytes([mode]) + open(os.path.join(jd, f), "rb").read())
    # json_big: header (layout | size class << 2, where lo, where hi, size
    # low bits) + the text between a seed's traceEvents brackets
    for i, f in enumerate(("edge-story.json", "gen-head.json", "edge-be-pairs.json", "edge-truncated.json",
                           "sample-simple_add.json", "edge-strings.json", "edge-flows.json",
                           "edge-sglang-steps.json")):
        text = open(os.path.join(jd, f), "rb").read()
        key = text.find(b'"traceEvents"')
        lb = text.index(b"[", key) + 1
        rb = text.rfind(b"]")
        events = text[lb:rb] if rb > lb else text[lb:]
        header = bytes([(i & 3) | ((i >> 1) & 3) << 2, (i * 37) & 0xFF, (i * 91) & 0xFF, (i * 53) & 0xFF])
        put("json_big", "l%d-%s" % (i & 3, f), header + events)
    # tix: small indexes of a few seeds
    if os.path.exists(args.tix):
        with tempfile.TemporaryDirectory() as td:
            for f in ("edge-story.json", "edge-graph.json", "edge-be-pairs.json", "edge-sglang-steps.json",
                      "edge-flows.json", "sample-triton_inductor.json", "gen-head.json", "edge-empty-events.json"):
                out = os.path.join(td, f + ".tix")
                r = subprocess.run([args.tix, "index", os.path.join(jd, f), "-o", out],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if r.returncode == 0:
                    put("tix", f.replace(".json", ".index"), open(out, "rb").read())  # *.tix is in .gitignore
                else:
                    print("tix index %s failed: %s" % (f, r.stderr.decode()), file=sys.stderr)
    else:
        print("no tix binary at %s: tix/ seeds not written" % args.tix, file=sys.stderr)
    # names
    extra = ["", "void", "void ", "<", "(", "((((", "operator()", "void f<(anonymous namespace)::X>(int)",
             "a::b<c<d>, e>::operator<<(x)", "std::vector<int, std::allocator<int> >::~vector()",
             "0", "0.", ".5", "-0", "1e400", "-9223372036854775.808", "9223372036854775.807",
             "1712195495519689.9995", "00012", " 12", "+3", "1e-3", "NaN", "inf"]
    for i, n in enumerate(sorted(names) + sorted(times) + extra):
        put("names", "n%03d" % i, n)
    # text: what the CSV, JSON and copy writers get (fuzz_text.c)
    text = [
        b"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
        b"::{lambda()#3}, std::array<char*, 2ul>, 4>(int, float)",
        b"k\x1b]0;PWNED-TITLE\x07\x1b]52;c;aGFja2Vk\x07_xxxx",
        b'=HYPERLINK("http://evil/","click")\x1f+cmd|\' /C calc\'!A0\x1f-2+3\x1f@SUM(A1:A9)',
        b"\tTAB-LEAD\x1f\rCR-LEAD\x1fplain",
        b"evil\xe2\x80\xaegnp.exe\x1f\xe2\x81\xa6iso\xe2\x81\xa9late\x1fcsi\xc2\x9b31mred",
        b"del\x7fete\x1flatin1-\xe9t\xe9\x1f\xed\xa0\x80surrogate\x1f\xf0\x9f\x98\x80emoji",
        b'q"uo"te\x1fback\\slash\\x41\x1f\x00nul',
        b"69.0\x1f64.59 ms\x1f78\x1f828.1 us\x1f[557496,1,1]\x1f[128,1,1]\x1funrolled_elementwise_kernel<...>",
        b"",
        b"\x1f\x1f\x1f",
    ]
    for i, t in enumerate(text):
        put("text", "t%02d" % i, t)
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(CORPUS) for f in fs)
    print("corpus: %d files, %d bytes" % (sum(len(fs) for _, _, fs in os.walk(CORPUS)), total))


if __name__ == "__main__":
    main()

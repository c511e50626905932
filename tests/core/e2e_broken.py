#!/usr/bin/env python3
"""Broken inputs: tix never crashes; bad input gives exit 2 and exactly one
line on stderr naming the file (and "byte N" for JSON syntax errors); odd but
readable input (control characters, invalid UTF-8, huge numbers, events of
the wrong types) is indexed, keeping every good event; a trace truncated
mid-event (plain or gzip) is indexed up to its last whole event with one
warning naming the byte offset.

    e2e_broken.py --tix TIX --work DIR
"""

import gzip
import json
import os
import re
import sys

import tixtest

sys.path.insert(0, os.path.join(tixtest.SRC, "tests", "ref"))
import recount  # noqa: E402

GOOD = ('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,'
        '"args":{"correlation":5}},'
        '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":3,'
        '"args":{"correlation":5,"grid":[1,2,3],"block":[4,1,1]}}')


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def is_hint(line):
    """`(N more; --top N shows more)`: the CLI's hints go to stderr, not into pipes."""
    return line.startswith("(") and ("more;" in line or "shown;" in line)


def one_line(err):
    lines = [l for l in err.split("\n") if l.strip() and not is_hint(l)]
    return len(lines) == 1, lines


def expect_error(args, chk, path, label, must=(), byte=False, strict=False):
    """`tix summary PATH --no-cache`: exit 2, one line naming the file."""
    rc, out, err = tixtest.tix(args, "summary", path, "--no-cache", *(["--strict"] if strict else []))
    ok1, lines = one_line(err)
    msg = lines[0] if lines else ""
    crash = tixtest.describe_crash(rc)
    chk.check(rc == 2 and ok1 and path in msg and all(m in msg for m in must)
              and (not byte or re.search(r"\bbyte \d+", msg)),
              "%s%s: exit 2, one line naming the file%s%s" % (label, ", --strict" if strict else "",
                                                            " and a byte offset" if byte else "",
                                                          (" with %s" % list(must)) if must else ""),
              "rc %d %s stderr %r" % (rc, crash, err[:400]))
    return msg


def expect_indexed(args, chk, path, label, names):
    """Indexes (exit 0) and keeps the GPU events named `names`."""
    rc, out, err = tixtest.tix(args, "summary", path, "--no-cache", "--format", "json")
    crash = tixtest.describe_crash(rc)
    if not chk.check(rc == 0, "%s: indexes (exit 0)" % label, "rc %d %s stderr %r" % (rc, crash, err[:400])):
        return None
    try:
        got = sorted(k["name"] for k in json.loads(out)["kernels"])
    except (ValueError, KeyError) as e:
        chk.check(False, "%s: JSON summary" % label, str(e))
        return None
    chk.eq(got, sorted(names), "%s: keeps the good GPU events" % label)
    chk.check(len([l for l in err.split("\n") if l.strip()]) <= 1, "%s: at most one warning line" % label, err[:300])
    return got


def trace_of(*extra):
    return '{"traceEvents": [' + ",".join((GOOD,) + extra) + ']}'


def ev(**kw):
    base = {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 30, "dur": 1}
    base.update(kw)
    return base


def raw_ev(fields):
    """An event from raw JSON member texts (so we can write what json.dumps won't)."""
    return "{" + ",".join('"%s":%s' % kv for kv in fields) + "}"


def errors(args, chk, d):
    expect_error(args, chk, write(os.path.join(d, "empty.json"), b""), "empty file")
    expect_error(args, chk, write(os.path.join(d, "spaces.json"), b"  \n\t \n"), "only whitespace")
    expect_error(args, chk, write(os.path.join(d, "notjson.json"), b"hello world\n"), "not JSON", byte=True)
    expect_error(args, chk, write(os.path.join(d, "binary.json"), bytes(range(256)) * 4), "binary junk", byte=True)
    expect_error(args, chk, write(os.path.join(d, "noev.json"), b'{"foo": 1, "bar": [1,2]}'), "no traceEvents",
                 must=("traceEvents",))
    expect_error(args, chk, write(os.path.join(d, "emptyobj.json"), b'{}'), "empty object", must=("traceEvents",))
    expect_error(args, chk, write(os.path.join(d, "notarr.json"), b'{"traceEvents": 5}'), "traceEvents not an array",
                 must=("traceEvents",))
    expect_error(args, chk, write(os.path.join(d, "notarr2.json"), b'{"traceEvents": {"a": 1}}'),
                 "traceEvents an object", must=("traceEvents",))
    expect_error(args, chk, write(os.path.join(d, "scalar.json"), b'42'), "a bare number", byte=True)
    # a malformed event: skipped with a warning naming its byte, the others
    # kept (issue 19); --strict: the error
    for label, item in (("event is a number", "7"), ("event is a string", '"s"'), ("event is null", "null"),
                        ("event is an array", "[1, 2]"), ("syntax error inside an event", '{"ph": "X",, }')):
        path = write(os.path.join(d, re.sub(r"\W+", "_", label) + ".json"),
                     '{"traceEvents": [' + GOOD + ', ' + item + ', ' + GOOD.replace('"k1"', '"k3"').replace('"correlation":5', '"correlation":6') + ']}')
        expect_error(args, chk, path, label, byte=True, strict=True)
        expect_indexed(args, chk, path, label + ", without --strict", ["k1", "k3"])
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
        chk.check(re.search(r"1 malformed event skipped.*the first at byte \d+", err) is not None,
                  "%s: the warning names the byte" % label, err[:300])
    # text after the closing brace: an error or ignored, but never a crash
    path = write(os.path.join(d, "garbage-after.json"), trace_of() + ' trailing garbage {')
    rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
    chk.check(rc in (0, 2) and len([l for l in err.split("\n") if l.strip()]) <= 1,
              "garbage after the trace: exit 0 or 2, at most one line", "rc %d %r" % (rc, err[:300]))
    os.makedirs(os.path.join(d, "a-folder.json"), exist_ok=True)
    expect_error(args, chk, os.path.join(d, "a-folder.json"), "a directory", must=("directory",))
    expect_error(args, chk, os.path.join(d, "missing.json"), "a missing file", must=("No such file",))
    # gzip that is not gzip inside
    src = os.path.join(d, "small.json.gz")
    with gzip.open(src, "wb") as f:
        f.write((trace_of() + "\n").encode() * 1)
    data = open(src, "rb").read()
    bad = bytearray(data)
    for i in range(10, len(bad) - 8):
        bad[i] ^= 0x5A
    expect_error(args, chk, write(os.path.join(d, "corrupt.json.gz"), bytes(bad)), "corrupt gzip")
    expect_error(args, chk, write(os.path.join(d, "gzip-header-only.json.gz"), data[:10]), "gzip header only")
    nojson = os.path.join(d, "gz-notjson.json.gz")
    with gzip.open(nojson, "wb") as f:
        f.write(b"this is not json at all")
    expect_error(args, chk, nojson, "gzip of text that is not JSON", byte=True)


def odd_but_readable(args, chk, d):
    # wrong types in one event: the others are kept (recount skips such events too)
    for label, e in (("ts true", ev(ts=True)), ("ts null", ev(ts=None)), ("ts object", ev(ts={})),
                     ("pid object", ev(pid={})), ("tid array", ev(tid=[])), ("dur string", ev(dur="x")),
                     ("ph number", ev(ph=5)), ("cat number", ev(cat=7)), ("args an array", ev(args=[1, 2])),
                     ("grid a string", ev(args={"grid": "x", "correlation": "y"})), ("no ph", {"name": "k2", "ts": 1}),
                     ("no ts", {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "dur": 1})):
        path = write(os.path.join(d, "type-" + re.sub(r"\W+", "_", label) + ".json"), trace_of(json.dumps(e)))
        want = [x.name for x in recount.Trace(recount.load_events(path)).gpu]
        expect_indexed(args, chk, path, "wrong type (%s)" % label, want)
    # huge numbers
    for label, fields, keep in (
            ("ts 1e30", [("ph", '"X"'), ("cat", '"kernel"'), ("name", '"k2"'), ("pid", "0"), ("tid", "7"),
                         ("ts", "1e30"), ("dur", "1")], False),
            ("dur 1e30", [("ph", '"X"'), ("cat", '"kernel"'), ("name", '"k2"'), ("pid", "0"), ("tid", "7"),
                          ("ts", "30"), ("dur", "1e30")], None),
            ("ts 10^23", [("ph", '"X"'), ("cat", '"kernel"'), ("name", '"k2"'), ("pid", "0"), ("tid", "7"),
                          ("ts", "99999999999999999999999"), ("dur", "1")], False),
            ("ids > 2^64", [("ph", '"X"'), ("cat", '"kernel"'), ("name", '"k2"'), ("pid", "184467440737095516160"),
                            ("tid", "-99999999999999999999"), ("ts", "30"), ("dur", "1"),
                            ("args", '{"correlation": 184467440737095516160, "External id": 1e400}')], True),
            ("flow id > 2^64", [("ph", '"s"'), ("cat", '"ac2g"'), ("name", '"ac2g"'), ("id", "99999999999999999999999"),
                                ("pid", "1"), ("tid", "1"), ("ts", "10")], False)):
        path = write(os.path.join(d, "huge-" + re.sub(r"\W+", "_", label) + ".json"), trace_of(raw_ev(fields)))
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache", "--format", "json")
        names = []
        if rc == 0:
            names = sorted(k["name"] for k in json.loads(out)["kernels"])
        ok = rc == 0 and "k1" in names and (keep is None or ("k2" in names) == keep)
        chk.check(ok, "huge numbers (%s): indexes, good events kept%s" % (
            label, "" if keep is None else (", the event kept" if keep else ", the event skipped")),
            "rc %d %s names %s stderr %r" % (rc, tixtest.describe_crash(rc), names, err[:300]))
    # control characters and invalid UTF-8 inside strings must index
    for label, name in (("escaped control characters", b'"esc\\u0001\\u001f\\n"'),
                        ("raw control characters", b'"raw\x01\x1f\x7f"'),
                        ("raw tab", b'"tab\there"'),
                        ("raw newline", b'"new\nline"'),
                        ("raw carriage return", b'"cr\rhere"'),
                        ("invalid UTF-8", b'"bad\xff\xfe\xc3"'),
                        ("overlong UTF-8", b'"over\xc0\xafx"'),
                        ("UTF-8 surrogate bytes", b'"sur\xed\xa0\x80x"'),
                        ("lone surrogate escape", b'"lone\\ud800x"'),
                        ("valid multibyte UTF-8", '"caf\u00e9 \u6f22 \U0001f600"'.encode())):
        body = (b'{"traceEvents": [' + GOOD.encode() + b', {"ph":"X","cat":"kernel","name":' + name +
                b',"pid":0,"tid":7,"ts":30,"dur":1,"args":{"note":' + name + b'}}]}')
        path = write(os.path.join(d, "str-" + re.sub(r"\W+", "_", label) + ".json"), body)
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache", "--format", "json")
        n = -1
        if rc == 0:
            try:
                n = len(json.loads(out)["kernels"])
            except ValueError as e:
                chk.check(False, "%s: summary stays valid JSON" % label, str(e))
        chk.check(rc == 0 and n == 2, "%s inside strings: indexes, both kernels kept" % label,
                  "rc %d %s groups %d stderr %r" % (rc, tixtest.describe_crash(rc), n, err[:300]))
        if rc == 0:
            rc2, out2, err2 = tixtest.tix(args, "show", path, "--kernel", "", "--format", "json", "--no-cache")
            try:
                json.loads(out2)
                okj = rc2 == 0
            except ValueError:
                okj = False
            chk.check(okj, "%s: show --format json is valid JSON" % label, out2[:200])
    # a kernel without correlation, linked to its launch by an ac2g flow only,
    # in either order of the events in the file
    cpu = ('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{}},'
           '{"ph":"s","cat":"ac2g","name":"ac2g","id":42,"pid":1,"tid":1,"ts":10}')
    gpu = ('{"ph":"X","cat":"kernel","name":"flowk","pid":0,"tid":7,"ts":20,"dur":3,"args":{"grid":[1,1,1]}},'
           '{"ph":"f","bp":"e","cat":"ac2g","name":"ac2g","id":42,"pid":0,"tid":7,"ts":20}')
    for label, body in (("CPU events first", cpu + "," + gpu), ("GPU events first", gpu + "," + cpu)):
        path = write(os.path.join(d, "flow-" + re.sub(r"\W+", "_", label) + ".json"), '{"traceEvents": [' + body + ']}')
        rc, out, err = tixtest.tix(args, "show", path, "--kernel", "flowk", "--format", "json", "--no-cache")
        launch = None
        if rc == 0:
            ls = json.loads(out)["launches"]
            launch = ls[0]["launch"] if ls else None
        chk.check(rc == 0 and launch and launch["name"] == "cudaLaunchKernel" and launch["start_ns"] == 10000,
                  "ac2g flow links a kernel without correlation (%s)" % label,
                  "rc %d launch %r %s" % (rc, launch, err[:200]))
    # a duration longer than 2^32 ns (4.29 s) keeps its value
    path = write(os.path.join(d, "long-dur.json"), trace_of(json.dumps(ev(name="longk", dur=5000000.5))))
    rc, out, err = tixtest.tix(args, "summary", path, "--no-cache", "--format", "json")
    got = {k["name"]: k["total_ns"] for k in json.loads(out)["kernels"]} if rc == 0 else {}
    chk.eq(got.get("longk"), 5000000500, "a 5 s kernel keeps its duration (5000000500 ns)")
    # the JSON Array Format and a BOM
    expect_indexed(args, chk, write(os.path.join(d, "array-format.json"), "[" + GOOD + "]"), "JSON Array Format", ["k1"])
    expect_indexed(args, chk, write(os.path.join(d, "bom.json"), b"\xef\xbb\xbf" + trace_of().encode()), "UTF-8 BOM", ["k1"])
    expect_indexed(args, chk, write(os.path.join(d, "empty-events.json"), '{"traceEvents": []}'), "no events", [])


def truncations(args, chk, d):
    # a small generated trace cut mid-event, plain and gzip
    full = tixtest.generate(os.path.join(d, "trunc-full.json"), "--steps", 2, "--layers", 3)
    data = open(full, "rb").read()
    for frac in (0.37, 0.5, 0.81):
        cut = int(len(data) * frac)
        path = write(os.path.join(d, "trunc-%d.json" % int(frac * 100)), data[:cut])
        label = "truncated at %.0f%%" % (frac * 100)
        rc, out, err = tixtest.tix(args, "index", path, "-o", path + ".tix")
        # one line per warning (gzip cut short, then the salvage), nothing else
        lines = [l for l in err.split("\n") if l.strip() and not is_hint(l)]
        ok1 = lines and all(l.startswith("tix: ") and "warning:" in l for l in lines)
        m = re.search(r"(\d+) whole events before byte (\d+)", err)
        chk.check(rc == 0 and ok1 and path in err and "truncated" in err and m,
                  "%s: exit 0, one warning naming the file and the byte offset" % label,
                  "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:400]))
        evs, stop = recount.salvage_events(data[:cut].decode("utf-8", "surrogateescape"))
        if m:
            nev, off = int(m.group(1)), int(m.group(2))
            chk.eq(nev, len(evs), "%s: counts the %d whole events" % (label, len(evs)))
            between = data[off:stop] if stop is not None else b"?"
            chk.check(off <= cut and stop is not None and off <= stop and between.strip(b" \t\r\n,") == b"",
                      "%s: byte %d is right after the last whole event" % (label, off),
                      "recount stops at %s; bytes between %r" % (stop, between[:40]))
        # the summary of what was salvaged agrees with the recount of the whole events
        tr = recount.Trace([e for e in evs if isinstance(e, dict)])
        ref = recount.by_kernel(tr)
        rc, out, err = tixtest.tix(args, "summary", path + ".tix", "--format", "json")
        if chk.check(rc == 0, "%s: the salvaged index opens" % label, err[:200]):
            got = json.loads(out)
            chk.eq((got["total_gpu_ns"], sum(k["instances"] for k in got["kernels"])),
                   (ref["total_gpu_ns"], sum(k["instances"] for k in ref["kernels"])),
                   "%s: salvaged GPU events = recount of the whole events" % label)
        rc, out, err = tixtest.tix(args, "info", path + ".tix")
        chk.check(rc == 0 and "truncated" in out, "%s: tix info shows the salvage warning" % label, out[-300:])
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
        ok1, lines = one_line(err)
        chk.check(rc == 0 and ok1 and path in err and re.search(r"byte \d+", err),
                  "%s: tix summary: exit 0, one warning line with the byte offset" % label,
                  "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:400]))
    # cut inside a string, right after '[', right after a ',' between events
    head = data.index(b'"traceEvents"')
    lb = data.index(b"[", head) + 1
    for label, cut in (("just after [", lb), ("inside the first event's name", data.index(b'"name"', lb) + 10),
                       ("after a comma", data.index(b"},", lb + 1000) + 2), ("inside a number", data.index(b'"ts": ', lb) + 8)):
        path = write(os.path.join(d, "trunc-%s.json" % re.sub(r"\W+", "_", label)), data[:cut])
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
        ok1, lines = one_line(err)
        chk.check(rc in (0, 2) and ok1 and path in err and re.search(r"byte \d+", err),
                  "truncated %s: no crash, one line with the file and a byte offset" % label,
                  "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:300]))
    # cut in the header, before traceEvents
    path = write(os.path.join(d, "trunc-header.json"), data[:head // 2])
    rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
    ok1, lines = one_line(err)
    chk.check(rc == 2 and ok1 and path in err, "truncated before traceEvents: exit 2, one line",
              "rc %d stderr %r" % (rc, err[:300]))
    # gzip cut short
    gz = os.path.join(d, "trunc-full.json.gz")
    with open(gz, "wb") as f:
        f.write(gzip.compress(data, 6))
    gzd = open(gz, "rb").read()
    for frac in (0.3, 0.6, 0.97):
        path = write(os.path.join(d, "trunc-gz-%d.json.gz" % int(frac * 100)), gzd[:int(len(gzd) * frac)])
        label = "gzip truncated at %.0f%%" % (frac * 100)
        rc, out, err = tixtest.tix(args, "index", path, "-o", path + ".tix")
        # one line per warning (gzip cut short, then the salvage), nothing else
        lines = [l for l in err.split("\n") if l.strip() and not is_hint(l)]
        ok1 = lines and all(l.startswith("tix: ") and "warning:" in l for l in lines)
        m = re.search(r"(\d+) whole events before byte (\d+)", err)
        chk.check(rc == 0 and ok1 and path in err and m, "%s: exit 0, one salvage warning with the byte offset" % label,
                  "rc %d %s stderr %r" % (rc, tixtest.describe_crash(rc), err[:400]))
        if m:
            text = recount.read_bytes(path, True).decode("utf-8", "surrogateescape")
            evs, stop = recount.salvage_events(text)
            chk.eq(int(m.group(1)), len(evs), "%s: keeps the %d whole events" % (label, len(evs)))
    # every 1/40th of a small trace: never a crash, never more than one line
    small = tixtest.generate(os.path.join(d, "trunc-small.json"), "--steps", 1, "--layers", 1)
    sd = open(small, "rb").read()
    bad = []
    for i in range(1, 40):
        cut = len(sd) * i // 40
        path = write(os.path.join(d, "cut.json"), sd[:cut])
        rc, out, err = tixtest.tix(args, "summary", path, "--no-cache")
        ok1, lines = one_line(err)
        if rc not in (0, 2) or not ok1:
            bad.append("cut %d: rc %d %s %r" % (cut, rc, tixtest.describe_crash(rc), err[:200]))
    chk.check(not bad, "39 cuts of a small trace: exit 0/2, one stderr line each", "; ".join(bad[:4]))


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_broken")
    d = os.path.join(args.work, "broken")
    os.makedirs(d, exist_ok=True)
    errors(args, chk, d)
    odd_but_readable(args, chk, d)
    truncations(args, chk, d)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

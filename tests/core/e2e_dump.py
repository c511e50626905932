#!/usr/bin/env python3
"""tix dump (issue 21, item 5): what an index holds, as text.

    e2e_dump.py --tix TIX --work DIR --damage TIX_DAMAGE --future TIX_FUTURE
                [--traces SHARED_TRACES] [--update]

1. Golden dumps, tests/core/golden/dump/NAME.txt: the index of a seeded
   generated trace (steps, a step before the trace, CUDA graph replays, a
   chain of ancestors) and of a small real one from the shared corpus
   (triton_inductor.json.gz; skipped, not failed, when the corpus is absent).
   The replays' capture is not given to the golden one: the index records a
   capture by its real path, the work folder's.
   Each index is built in the work folder from a relative name, so only what
   the file system gives the index differs from one machine to the next: the
   source's mtime, device, inode and ctime in META, and so META's block sum,
   its checksum, BLOCK_SUMS's and the header's.  Those are normalised to
   <varies>; everything else must be byte for byte the golden.
2. The same dumps, and that of the generated trace indexed with its capture
   (CAPTURE_CHAINS and CAPTURE_FRAMES filled), against a reading of the file
   of this script's own (the struct module on format.h's layout, no tix
   code): the header, every section table entry, every ROWS and
   CAPTURE_FRAMES record field by field, every string of STRING_DATA
   (escaped as the dump's rule says), the shown prefix of each string after
   its id, and each block sum with its section and block.
3. --section: by name in any case and by id, the same lines as in the whole
   dump; an unknown name or id: exit 1, one line listing the sections.
4. A section of a later format (tix_future: id 40, 3 records of 12 bytes):
   shown in hex, by --section 40 too; the same file with a byte of it
   flipped: exit 2, one line (the reader itself skips such sections).
5. Damaged indexes (tix_damage's cases): a file the reader refuses gives
   exit 2 and one line naming it, never a crash; one whose checksums were
   fixed up gives exit 0 or 2 and at most one line.

--update writes the golden dumps after a deliberate change (review them with
git diff).  The documented command:
    cmake --build build --target dump_golden_update
"""

import difflib
import os
import re
import struct
import sys

import tixtest

GOLD = os.path.join(tixtest.HERE, "golden", "dump")
GEN_OPTS = ["--steps", "1", "--layers", "1", "--python-frames", "--with-stack", "--graph",
            "--capture-out", "gen-capture.json", "--pre-window", "1"]
REAL = "triton_inductor.json.gz"
SHOWN = 64  # index/dump.c: bytes of a string shown after its id in a record

HEADER = struct.Struct("<8sIIIIIIQQQ8s")
ENTRY = struct.Struct("<IIQQQ")
ROW = struct.Struct("<qIIIIIBBH")
FRAME = struct.Struct("<IIIB3x")
BLOCK_SUMS = 22
BLOCK_BYTES = 65536


def normalise(text):
    text = re.sub(r"(?m)^(META\[0\].*)$", lambda m: re.sub(
        r"\b(source_mtime_ns|source_dev|source_ino|source_ctime_ns)=\d+", r"\1=<varies>", m.group(1)),
        text)
    text = re.sub(r"(?m)^(header .* checksum=)0x[0-9a-f]+", r"\1<varies>", text)
    text = re.sub(r"(?m)^(table\[\d+\] name=(?:META|BLOCK_SUMS) .* checksum=)0x[0-9a-f]+",
                  r"\1<varies>", text)
    text = re.sub(r"(?m)^(BLOCK_SUMS\[\d+\] sum=)0x[0-9a-f]+( section=META )", r"\1<varies>\2", text)
    return text


# ---- the file, read apart from tix ----

def kind_labels():
    """The label column of TIX_KINDS in index/sink.h, in enum order."""
    with open(os.path.join(tixtest.SRC, "index", "sink.h")) as f:
        return re.findall(r'^\tX\((\w+), "([^"]*)"', f.read(), re.M)


def quoted(b, cap=None):
    """The dump's rule: printable text as it is, " and \\ after a backslash,
    other bytes (controls, C1, invalid UTF-8) as \\xNN; cut after the
    character that crosses cap, then ... after the quote."""
    out, i = [], 0
    while i < len(b) and (cap is None or i < cap):
        c = b[i]
        if 0x20 <= c < 0x7f:
            out.append(("\\" if c in (0x22, 0x5c) else "") + chr(c))
            i += 1
            continue
        n = 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
        try:
            ch = b[i:i + n].decode("utf-8") if n and i + n <= len(b) else None
        except UnicodeDecodeError:
            ch = None
        if ch is None or ord(ch) < 0xa0:  # invalid, or a C1 control: each byte escaped
            out.append("\\x%02x" % c)
            i += 1
        else:
            out.append(ch)
            i += n
    return '"' + "".join(out) + ('"...' if i < len(b) else '"')


def read_index(path):
    with open(path, "rb") as f:
        b = f.read()
    h = HEADER.unpack_from(b, 0)
    entries = [ENTRY.unpack_from(b, HEADER.size + i * ENTRY.size) for i in range(h[5])]
    sec = {e[0]: e for e in entries}
    offs = struct.unpack_from("<%dQ" % (sec[2][3] // 8), b, sec[2][2])
    data = b[sec[3][2]:sec[3][2] + sec[3][3]]
    strings = [data[offs[i]:offs[i + 1] - 1] for i in range(len(offs) - 1)]
    rows = [ROW.unpack_from(b, sec[5][2] + i * ROW.size) for i in range(sec[5][3] // ROW.size)]
    frames = [FRAME.unpack_from(b, sec[21][2] + i * FRAME.size) for i in range(sec[21][3] // FRAME.size)]
    sums = struct.unpack_from("<%dQ" % (sec[BLOCK_SUMS][3] // 8), b, sec[BLOCK_SUMS][2])
    return b, h, entries, offs, strings, rows, frames, sums


def blocks_of(size, elem):
    shift = 0
    while (2 << shift) * elem <= BLOCK_BYTES:
        shift += 1
    per = elem << shift
    return size // per + (size % per != 0)


def records(dump, name):
    """{i: line} of the records NAME[i] in a dump."""
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"(?m)^%s\[(\d+)\].*$" % name, dump)}


def check_against_file(chk, what, dump, path):
    b, h, entries, offs, strings, rows, frames, sums = read_index(path)
    head = ("header magic=\"%s\" version=%d min_reader_version=%d header_size=%d endian=0x%08x "
            "section_count=%d flags=0x%08x section_table_offset=%d file_size=%d checksum=0x%016x"
            % (h[0].rstrip(b"\0").decode(), *h[1:10]))
    chk.check(("\n" + head + "\n") in dump, "%s: the header line has the header's fields" % what, head)
    names = dict(re.findall(r"(?m)^table\[\d+\] name=(\w+) id=(\d+)", dump))
    bad = []
    owners = []
    for i, (sid, elem, off, size, csum) in enumerate(entries):
        nb = 0 if sid == BLOCK_SUMS else blocks_of(size, elem)
        if sid != BLOCK_SUMS:
            owners += [(sid, k) for k in range(nb)]
        want = re.compile(r"(?m)^table\[%d\] name=\w+ id=%d elem_size=%d offset=%d size=%d "
                          r"checksum=0x%016x records=%d blocks=%d$" % (i, sid, elem, off, size, csum,
                                                                       size // elem, nb))
        if not want.search(dump):
            bad.append("entry %d (id %d)" % (i, sid))
    chk.check(not bad and len(entries) == h[5], "%s: %d section table entries as in the file"
              % (what, len(entries)), ", ".join(bad[:5]))
    by_id = {v: k for k, v in names.items()}
    got = records(dump, "STRING_DATA")
    want_strings = {i: "STRING_DATA[%d] offset=%d length=%d %s" % (i, offs[i], len(s), quoted(s))
                    for i, s in enumerate(strings)}
    bad = [i for i, s in want_strings.items() if got.get(i) != s]
    chk.check(not bad and len(got) == len(strings), "%s: all %d strings, whole and escaped"
              % (what, len(strings)), "string %s: %r" % (bad[:1], got.get(bad[0]) if bad else ""))
    labels = [label for _, label in kind_labels()]
    got = records(dump, "ROWS")
    bad = []
    for i, r in enumerate(rows):
        start, dur, name, track, detail, link, kind, flags, beneath = r
        none = lambda v: "none" if v == 0xFFFFFFFF else str(v)
        want = ("ROWS[%d] start_ns=%d dur_ns=%d name=%d %s track=%d detail=%s link=%s kind=%s "
                "flags=0x%02x gpu_beneath=%d" % (i, start, dur, name, quoted(strings[name], SHOWN),
                                                 track, none(detail), none(link), labels[kind],
                                                 flags, beneath))
        if got.get(i) != want:
            bad.append("%r != %r" % (got.get(i), want))
    chk.check(not bad and len(got) == len(rows), "%s: all %d rows, field by field" % (what, len(rows)),
              bad[0] if bad else "%d rows in the dump" % len(got))
    got = records(dump, "CAPTURE_FRAMES")
    bad = []
    for i, (name, dims, types, kind) in enumerate(frames):
        s = lambda v: "none" if v == 0xFFFFFFFF else "%d %s" % (v, quoted(strings[v], SHOWN))
        want = "CAPTURE_FRAMES[%d] name=%s dims=%s types=%s kind=%s" % (i, s(name), s(dims), s(types),
                                                                      labels[kind])
        if got.get(i) != want:
            bad.append("%r != %r" % (got.get(i), want))
    chk.check(not bad and len(got) == len(frames), "%s: all %d capture frames, field by field"
              % (what, len(frames)), bad[0] if bad else "%d in the dump" % len(got))
    got = records(dump, "BLOCK_SUMS")
    bad = [k for k, s in enumerate(sums)
           if got.get(k) != "BLOCK_SUMS[%d] sum=0x%016x section=%s block=%d"
           % (k, s, by_id.get(str(owners[k][0]), "UNKNOWN_%d" % owners[k][0]), owners[k][1])]
    chk.check(not bad and len(sums) == len(owners), "%s: %d block sums, each with its section and block"
              % (what, len(sums)), repr(got.get(bad[0]) if bad else len(owners)))


# ---- the parts ----

def golden(chk, args, name, index, seen):
    rc, out, err = tixtest.tix(args, "dump", os.path.basename(index), cwd=os.path.dirname(index))
    if not chk.check(rc == 0 and not err, "tix dump %s: exit 0, nothing on stderr" % name,
                     "rc %d %s %s" % (rc, tixtest.describe_crash(rc), err.strip()[:300])):
        return None
    got = normalise(out)
    gold = os.path.join(GOLD, name + ".txt")
    seen.add(name + ".txt")
    if args.update:
        os.makedirs(GOLD, exist_ok=True)
        with open(gold, "w", encoding="utf-8") as f:
            f.write(got)
        print("wrote %s" % os.path.relpath(gold, tixtest.SRC))
        return out
    try:
        with open(gold, encoding="utf-8") as f:
            want = f.read()
    except FileNotFoundError:
        chk.check(False, "golden/dump/%s.txt" % name,
                  "missing (refresh: cmake --build build --target dump_golden_update)")
        return out
    d = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                     "golden/dump/%s.txt" % name, "tix dump"))
    chk.check(got == want, "tix dump %s is golden/dump/%s.txt" % (name, name),
              "differs:\n%s\nIf the change is meant: cmake --build build --target dump_golden_update"
              % d[:4000])
    return out


def sections(chk, args, index, dump):
    block = re.search(r"(?ms)^section STEPS .*?(?=^\n|\Z)", dump).group(0)
    for spelled in ("STEPS", "steps", "10"):
        rc, out, err = tixtest.tix(args, "dump", index, "--section", spelled)
        chk.check(rc == 0 and out.strip() == block.strip() and not err,
                  "--section %s: the STEPS lines of the whole dump" % spelled, err.strip()[:200])
    rc, out, err = tixtest.tix(args, "dump", index, "--section=ROWS")
    chk.check(rc == 0 and out.strip() == re.search(r"(?ms)^section ROWS .*?(?=^\n|\Z)", dump).group(0).strip(),
              "--section=ROWS: the ROWS lines")
    for spelled in ("ROWZ", "99", "0"):
        rc, out, err = tixtest.tix(args, "dump", index, "--section", spelled)
        lines = err.strip().splitlines()
        chk.check(rc == 1 and not out and len(lines) == 1 and "no section '%s'" % spelled in err
                  and "STEPS" in err, "--section %s: exit 1, one line naming the sections" % spelled,
                  "rc %d %r" % (rc, err[:300]))


def future(chk, args, index):
    out_tix = os.path.join(args.work, "future.tix")
    bad_tix = os.path.join(args.work, "future-bad.tix")
    rc, _, err = tixtest.run([args.future, index, out_tix, bad_tix])
    if not chk.check(rc == 0, "tix_future writes a later format's index", err):
        return
    rc, out, err = tixtest.tix(args, "info", out_tix)
    chk.check(rc == 0, "tix info opens it (the reader skips a section it does not know)", err.strip())
    rc, out, err = tixtest.tix(args, "dump", out_tix)
    hexes = ["UNKNOWN_40[%d] bytes=%s" % (r, "".join("%02x" % (12 * r + k) for k in range(12)))
             for r in range(3)]
    chk.check(rc == 0 and all("\n%s\n" % h in out for h in hexes) and
              re.search(r"(?m)^table\[\d+\] name=UNKNOWN_40 id=40 elem_size=12 .* records=3 blocks=1$", out)
              and re.search(r"(?m)^BLOCK_SUMS\[\d+\] sum=0x[0-9a-f]+ section=UNKNOWN_40 block=0$", out),
              "tix dump: section 40 in the table, its 3 records in hex, its block sum", err.strip())
    rc, out, err = tixtest.tix(args, "dump", out_tix, "--section", "40")
    chk.check(rc == 0 and out == "\nsection UNKNOWN_40 id=40 elem_size=12 records=3\n" +
              "".join(h + "\n" for h in hexes), "--section 40: its records alone", repr(out[:300]))
    rc, out, err = tixtest.tix(args, "dump", bad_tix)
    lines = err.strip().splitlines()
    chk.check(rc == 2 and not out and len(lines) == 1 and bad_tix in err and
              "checksum of section 40, block 0" in err,
              "a flipped byte in section 40: exit 2, one line, nothing printed", "rc %d %r" % (rc, err))


def damaged(chk, args, index):
    d = os.path.join(args.work, "damaged")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    rc, out, err = tixtest.run([args.damage, index, d, "0"], timeout=300)
    if not chk.check(rc == 0, "tix_damage writes the damaged copies", (err or out)[-300:]):
        return
    with open(os.path.join(d, "cases.txt")) as f:
        cases = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    bad_err, bad_any = [], []
    for name, expect, what in cases:
        path = os.path.join(d, name)
        rc, out, err = tixtest.tix(args, "dump", path)
        lines = [l for l in err.split("\n") if l.strip()]
        if expect == "error":
            if not (rc == 2 and not out and len(lines) == 1 and path in lines[0]):
                bad_err.append("%s (%s): rc %d %s %r" % (name, what, rc, tixtest.describe_crash(rc), err[:200]))
        elif rc not in (0, 2) or len(lines) > 1:
            bad_any.append("%s (%s): rc %d %s %r" % (name, what, rc, tixtest.describe_crash(rc), err[:200]))
    nerr = sum(1 for c in cases if c[1] == "error")
    chk.check(nerr > 40 and not bad_err, "tix dump on %d damaged files: exit 2, one line naming the "
              "file, nothing on stdout" % nerr, "; ".join(bad_err[:4]))
    chk.check(not bad_any, "tix dump on %d re-checksummed files: exit 0 or 2, at most one line"
              % (len(cases) - nerr), "; ".join(bad_any[:4]))


def command_line(chk, args, index, trace):
    for argv, want_rc, want in [
        ([], 1, "no index given"),
        ([index, "--bogus"], 1, "unknown option '--bogus'"),
        ([index, index], 1, "unexpected argument"),
        ([index, "--section"], 1, "--section needs a value"),
        ([trace], 2, "not a tix index"),
        ([os.path.join(args.work, "nosuch.tix")], 2, "nosuch.tix"),
    ]:
        rc, out, err = tixtest.tix(args, "dump", *argv)
        chk.check(rc == want_rc and not out and err.count("\n") == 1 and want in err,
                  "tix dump %s: exit %d, one line" % (" ".join(os.path.basename(a) for a in argv),
                                                      want_rc), "rc %d %r" % (rc, err[:200]))


def main():
    p = tixtest.arg_parser(__doc__.split("\n\n")[0])
    p.add_argument("--damage", required=True, help="the tix_damage tool")
    p.add_argument("--future", required=True, help="the tix_future tool")
    p.add_argument("--traces", default=os.path.join(tixtest.SRC, "..", "shared", "traces"),
                   help="the shared corpus (the real golden is skipped without it)")
    p.add_argument("--update", action="store_true", help="write the golden dumps")
    args = tixtest.setup(p.parse_args())
    args.work = os.path.abspath(args.work)
    chk = tixtest.Checker("core_dump")
    seen = set()

    cwd = os.getcwd()
    os.chdir(args.work)  # the capture trace is written beside it, by the name given
    try:
        tixtest.generate("gen.json", *GEN_OPTS)
    finally:
        os.chdir(cwd)
    gen = os.path.join(args.work, "gen.tix")
    rc, _, err = tixtest.tix(args, "index", "gen.json", "-o", "gen.tix", cwd=args.work)
    if not chk.check(rc == 0, "index the generated trace", err):
        return chk.done()
    dump = golden(chk, args, "generated", gen, seen)
    if dump is not None:
        check_against_file(chk, "generated", dump, gen)
        sections(chk, args, gen, dump)
    cap = os.path.join(args.work, "gen-capture.tix")
    rc, _, err = tixtest.tix(args, "index", "gen.json", "--graph-capture", "gen-capture.json",
                             "-o", cap, cwd=args.work)
    if chk.check(rc == 0, "index the generated trace with its capture", err):
        rc, dump, err = tixtest.tix(args, "dump", cap)
        if chk.check(rc == 0 and not err and re.search(r"(?m)^CAPTURE_FRAMES\[0\] ", dump),
                     "tix dump of it: exit 0, capture frames", err.strip()[:300]):
            check_against_file(chk, "with its capture", dump, cap)

    real = os.path.join(args.traces, REAL)
    if os.path.exists(real):
        staged = tixtest.stage(real, args.work)
        rc, _, err = tixtest.tix(args, "index", REAL, "-o", REAL + ".tix", cwd=os.path.dirname(staged))
        if chk.check(rc == 0, "index %s" % REAL, err):
            dump = golden(chk, args, "real", staged + ".tix", seen)
            if dump is not None:
                check_against_file(chk, "real", dump, staged + ".tix")
    else:
        seen.add("real.txt")  # kept as it is
        chk.skip("the real trace's golden dump", "no %s (the shared corpus is absent)" % real)

    if args.update:
        print("core_dump: golden dumps written to %s; review them with git diff"
              % os.path.relpath(GOLD, tixtest.SRC))
        return 0
    stale = sorted(f for f in os.listdir(GOLD) if f not in seen) if os.path.isdir(GOLD) else []
    chk.check(not stale, "golden/dump holds only the dumps this test makes", ", ".join(stale))
    future(chk, args, gen)
    damaged(chk, args, gen)
    command_line(chk, args, gen, os.path.join(args.work, "gen.json"))
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

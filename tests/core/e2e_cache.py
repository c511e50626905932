#!/usr/bin/env python3
"""The index cache: TRACE.tix next to the trace, reused while the trace is
unchanged; rebuilt when the trace is touched or rewritten, when
--step-marker changes, or when the cached index is damaged (seen at open,
or by tix info; damage a query meets later ends the command with one line
and removes the index, so the next run rebuilds it); --no-cache
leaves no index anywhere; a trace in a folder tix cannot write to gets its
index under $XDG_CACHE_HOME/tix/ (tested with `chattr +i` on the folder,
since root can write through mode 555; skipped when chattr is refused).

    e2e_cache.py --tix TIX --work DIR
"""

import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import time

import tixtest


def ident(path):
    st = os.stat(path)
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def summary(args, chk, trace, label, *extra):
    rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json", *extra)
    chk.check(rc == 0, "%s: exit 0" % label, "rc %d %s" % (rc, err.strip()[:300]))
    return out


def cache_files(xdg):
    d = os.path.join(xdg, "tix")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
                      0x27D4EB2F165667C5)


def hash64(data):
    """index/common.c's tix_hash64 (seed 0), to fix up a header here."""
    rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M64
    lane = lambda acc, v: (rotl((acc + v * P2) & M64, 31) * P1) & M64
    rd = lambda i, n: int.from_bytes(data[i:i + n], "little")
    p, end = 0, len(data)
    if end >= 32:
        a, b, c, d = (P1 + P2) & M64, P2, 0, (-P1) & M64
        while True:
            a, b, c, d = lane(a, rd(p, 8)), lane(b, rd(p + 8, 8)), lane(c, rd(p + 16, 8)), lane(d, rd(p + 24, 8))
            p += 32
            if p + 32 > end:
                break
        h = (rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18)) & M64
        for x in (a, b, c, d):
            h = ((h ^ lane(0, x)) * P1 + P4) & M64
    else:
        h = P5
    h = (h + end) & M64
    while p + 8 <= end:
        h = (rotl(h ^ lane(0, rd(p, 8)), 27) * P1 + P4) & M64
        p += 8
    if p + 4 <= end:
        h = (rotl(h ^ ((rd(p, 4) * P1) & M64), 23) * P2 + P3) & M64
        p += 4
    while p < end:
        h = (rotl(h ^ ((data[p] * P5) & M64), 11) * P1) & M64
        p += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def older_version(args, chk, trace):
    """A cached index that an older tix wrote (format version 4: without
    what findings read) is rebuilt, not reused; given as a .tix it is
    refused in one line that says why (exit 2), never misread."""
    rc, _, err = tixtest.tix(args, "summary", trace, "--top", "1")
    ix = trace + ".tix"
    with open(ix, "rb") as f:
        b = bytearray(f.read())
    version = struct.unpack_from("<I", b, 8)[0]
    nsect = struct.unpack_from("<I", b, 24)[0]
    table = struct.unpack_from("<Q", b, 32)[0]
    struct.pack_into("<I", b, 8, version - 1)
    struct.pack_into("<Q", b, 48, 0)
    struct.pack_into("<Q", b, 48, hash64(bytes(b[:64]) + bytes(b[table:table + 32 * nsect])))
    with open(ix, "wb") as f:
        f.write(b)
    rc, out, err = tixtest.tix(args, "info", ix)
    chk.check(rc == 2 and "older than this tix reads" in err and err.count("\n") == 1,
              "an index of format %d given as a .tix is refused in one line" % (version - 1),
              "rc %d %s" % (rc, err[:200]))
    rc, out, err = tixtest.tix(args, "info", trace)
    chk.check(rc == 0 and "format %d" % version in out,
              "a cached index of format %d is rebuilt as format %d" % (version - 1, version), out[:300])


def progress_bar(args, chk, trace):
    """With stderr a terminal a build shows a progress bar whose sizes are
    in MB of 10^6 bytes, as every size tix prints (issue 20 item 9)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.execv(args.tix, [args.tix, "index", trace, "-o", trace + ".bar.tix"])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    bars = re.findall(r"(\d+)/(\d+) MB", out.decode("utf-8", "replace"))
    size = os.path.getsize(trace)
    chk.check(bars and bars[-1] == (str(round(size / 1e6)),) * 2,
              "progress bar: %d bytes read are %d/%d MB" % (size, round(size / 1e6), round(size / 1e6)),
              "the bar said %r" % (bars[-3:],))


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_cache")
    xdg = os.environ["XDG_CACHE_HOME"]
    d = os.path.join(args.work, "cache")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    src = tixtest.generate(os.path.join(args.work, "cache-src.json"), "--steps", 3, "--layers", 2)
    trace = os.path.join(d, "t.json")
    shutil.copyfile(src, trace)
    tix_path = trace + ".tix"

    first = summary(args, chk, trace, "first run builds")
    chk.check(os.path.exists(tix_path), "the index is written next to the trace (t.json.tix)")
    if not os.path.exists(tix_path):
        return chk.done()
    id1 = ident(tix_path)
    leftovers = [f for f in os.listdir(d) if f not in ("t.json", "t.json.tix")]
    chk.check(not leftovers, "no temporary files left next to the trace", str(leftovers))
    time.sleep(0.05)
    second = summary(args, chk, trace, "second run")
    chk.eq(ident(tix_path), id1, "second run reuses the index (same inode, mtime, size)")
    chk.eq(second, first, "second run prints the same")
    rc, out, err = tixtest.tix(args, "summary", tix_path, "--by", "step", "--format", "json")
    chk.check(rc == 0 and out.replace(tix_path, trace) == first.replace(tix_path, trace),
              "the .tix opens directly with the same answer")

    # touching the trace rebuilds
    st = os.stat(trace)
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    summary(args, chk, trace, "after touch")
    id2 = ident(tix_path)
    chk.check(id2 != id1, "touching the trace rebuilds the index")
    summary(args, chk, trace, "run after the rebuild")
    chk.eq(ident(tix_path), id2, "...and the rebuilt index is reused after that")

    # rewriting the head in place, same size and mtime: the head/tail hash sees it
    st = os.stat(trace)
    with open(trace, "r+b") as f:
        head = f.read(65536)
        i = head.find(b'"dur": ')
        j = i + len(b'"dur": ')
        digit = head[j:j + 1]
        chk.check(digit.isdigit(), "found a duration in the first 64 KiB to rewrite")
        f.seek(j)
        f.write(b"9" if digit != b"9" else b"8")
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns))
    chk.eq(os.stat(trace).st_size, st.st_size, "rewritten trace keeps its size")
    summary(args, chk, trace, "after an in-place rewrite")
    id3 = ident(tix_path)
    chk.check(id3 != id2, "rewriting the trace (same size and mtime) rebuilds the index")

    # --step-marker changes rebuild; going back rebuilds again
    out = summary(args, chk, trace, "--step-marker", "--step-marker", "ProfilerStep#2$")
    id4 = ident(tix_path)
    chk.check(id4 != id3 and '"ProfilerStep#2"' in out and '"ProfilerStep#1"' not in out,
              "--step-marker change rebuilds, with the new steps")
    summary(args, chk, trace, "same --step-marker", "--step-marker", "ProfilerStep#2$")
    chk.eq(ident(tix_path), id4, "the same --step-marker reuses the index")
    default_out = summary(args, chk, trace, "default markers again")
    chk.check(ident(tix_path) != id4 and '"ProfilerStep#1"' in default_out, "back to the default markers rebuilds")
    id5 = ident(tix_path)

    # a damaged cached index: the reader checks the header and the table at
    # open, the rest of the file when a command first reads it (index.h)
    def flip(at):
        with open(tix_path, "r+b") as f:
            f.seek(at)
            b = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([b[0] ^ 0xFF]))

    flip(60)  # the header's reserved bytes: its checksum fails at open
    rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json")
    chk.check(rc == 0 and out == default_out and ident(tix_path) != id5,
              "a cached index damaged where open looks is rebuilt (exit 0)", "rc %d %s" % (rc, err.strip()[:300]))
    chk.check(not err.strip(), "...without noise on stderr", err.strip()[:300])
    id6 = ident(tix_path)
    flip(os.path.getsize(tix_path) // 2)
    rc, out, err = tixtest.tix(args, "info", trace)
    chk.check(rc == 0 and ident(tix_path) != id6 and not err.strip(),
              "tix info checks the whole cached index and rebuilds a damaged one silently",
              "rc %d %s" % (rc, err.strip()[:300]))
    # a byte of the steps (section 10, docs/FORMAT.md), which summary --by step reads
    with open(tix_path, "rb") as f:
        head = f.read(4096)
    nsec = struct.unpack_from("<I", head, 24)[0]
    steps = [struct.unpack_from("<IIQQ", head, 64 + 32 * i) for i in range(nsec)]
    steps = [(off, size) for sid, _, off, size in steps if sid == 10]
    chk.check(len(steps) == 1 and steps[0][1] > 0, "the index has a STEPS section")
    if steps and steps[0][1] > 0:
        flip(steps[0][0] + steps[0][1] // 2)
        rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json")
        lines = [l for l in err.split("\n") if l.strip()]
        chk.check(rc == 2 and len(lines) == 1 and tix_path in lines[0] and "damaged" in lines[0] and
                  "removed" in lines[0] and not os.path.exists(tix_path),
                  "damage a query meets: exit 2, one line naming the index, which is removed",
                  "rc %d %s" % (rc, err.strip()[:400]))
        rc, out, err = tixtest.tix(args, "summary", trace, "--by", "step", "--format", "json")
        chk.check(rc == 0 and out == default_out and os.path.exists(tix_path) and not err.strip(),
                  "the next run builds the index again", "rc %d %s" % (rc, err.strip()[:300]))
    # an empty cached index too
    open(tix_path, "wb").close()
    rc, out, err = tixtest.tix(args, "summary", trace)
    chk.check(rc == 0 and os.path.getsize(tix_path) > 0, "an empty cached index is rebuilt", err.strip()[:300])

    # --no-cache: no index next to the trace, nothing new in the cache folder
    trace2 = os.path.join(d, "nocache.json")
    shutil.copyfile(src, trace2)
    before = cache_files(xdg)
    out = summary(args, chk, trace2, "--no-cache", "--no-cache")
    chk.check(not os.path.exists(trace2 + ".tix"), "--no-cache writes no index next to the trace")
    chk.eq(cache_files(xdg), before, "--no-cache leaves nothing in $XDG_CACHE_HOME/tix")
    chk.check('"steps"' in out, "--no-cache still answers")

    # tix index -o: builds even when a valid index exists, and writes where told
    out_tix = os.path.join(d, "explicit.tix")
    rc, out, err = tixtest.tix(args, "index", trace, "-o", out_tix)
    chk.check(rc == 0 and os.path.exists(out_tix) and "indexed" in out, "tix index -o OUT.tix", err)
    idx = ident(trace + ".tix")
    rc, out, err = tixtest.tix(args, "index", trace)
    chk.check(rc == 0 and ident(trace + ".tix") != idx, "tix index rebuilds the cached index", err)

    # a folder tix cannot write to: the index goes to $XDG_CACHE_HOME/tix/
    ro = os.path.join(d, "readonly")
    os.makedirs(ro)
    trace3 = os.path.join(ro, "ro.json")
    shutil.copyfile(src, trace3)
    locked = False
    if os.geteuid() != 0:
        os.chmod(ro, 0o555)
        locked = True
    else:
        r = subprocess.run(["chattr", "+i", ro], stdout=subprocess.PIPE, stderr=subprocess.PIPE) \
            if shutil.which("chattr") else None
        locked = r is not None and r.returncode == 0
    if not locked:
        chk.skip("unwritable trace folder", "running as root and `chattr +i` is not available here")
    else:
        try:
            for f in cache_files(xdg):
                if f.endswith("-ro.json.tix"):
                    os.unlink(os.path.join(xdg, "tix", f))
            before = cache_files(xdg)
            summary(args, chk, trace3, "trace in an unwritable folder")
            chk.check(not os.path.exists(trace3 + ".tix"), "unwritable folder: nothing written next to the trace")
            new = [f for f in cache_files(xdg) if f not in before]
            chk.check(len(new) == 1 and new[0].endswith("ro.json.tix"),
                      "unwritable folder: the index is in $XDG_CACHE_HOME/tix/", str(new))
            if len(new) == 1:
                cpath = os.path.join(xdg, "tix", new[0])
                cid = ident(cpath)
                summary(args, chk, trace3, "second run, unwritable folder")
                chk.eq(ident(cpath), cid, "unwritable folder: the cached index is reused")
                tmp = [f for f in cache_files(xdg) if f not in before and f != new[0]]
                chk.check(not tmp, "no temporary files left in the cache folder", str(tmp))
        finally:
            if os.geteuid() != 0:
                os.chmod(ro, 0o755)
            else:
                subprocess.run(["chattr", "-i", ro])
    older_version(args, chk, tixtest.generate(os.path.join(args.work, "older.json"), "--steps", "2",
                                              "--layers", "2"))
    # some 17 MB (16.5 MiB): the bar says 17/17 MB, not 16/16
    big = tixtest.generate(os.path.join(args.work, "big.json"), "--steps", "2", "--target-mb", "21")
    progress_bar(args, chk, big)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

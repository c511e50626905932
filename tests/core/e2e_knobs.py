#!/usr/bin/env python3
"""The knobs of tests and bench/ reach the libraries from the CLI, the one
place that reads them from the environment (parse/ and index/ take them in
their options structs):
- TIX_TIMING=1 makes `tix index` print each build phase's time, and the
  parse's; without it, nothing of the kind;
- TIX_INFLATE=zlib inflates through zlib: a corrupt .gz is reported in
  zlib's words, as Python's own zlib words it (in a build with ISA-L the
  default says it in ISA-L's).

    e2e_knobs.py --tix TIX --work DIR
"""
import gzip
import os
import re
import sys
import zlib

import tixtest


def main():
    p = tixtest.arg_parser(__doc__)
    args = tixtest.setup(p.parse_args())
    chk = tixtest.Checker("e2e_knobs")
    src = tixtest.generate(os.path.join(args.work, "knobs.json"), "--steps", 2, "--layers", 4)

    out = os.path.join(args.work, "knobs.tix")
    rc, _, err = tixtest.run([args.tix, "index", src, "-o", out], env=dict(os.environ, TIX_TIMING="1"))
    chk.check(rc == 0 and re.search(r"^tix: timing: place +[0-9.]+ s$", err, re.M)
              and re.search(r"^tix: timing: parse [0-9.]+ s", err, re.M),
              "TIX_TIMING=1: the phases' and the parse's times", err)
    env = {k: v for k, v in os.environ.items() if k != "TIX_TIMING"}
    rc, _, err = tixtest.run([args.tix, "index", src, "-o", out], env=env)
    chk.check(rc == 0 and "timing" not in err, "without TIX_TIMING: no times", err)

    data = bytearray(gzip.compress(open(src, "rb").read(), 6))
    data[15] ^= 0xFF  # inside the first deflate block's header
    bad = os.path.join(args.work, "corrupt.json.gz")
    with open(bad, "wb") as f:
        f.write(data)
    try:
        zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(bytes(data))
        want = None
    except zlib.error as e:
        want = str(e).split(": ", 1)[-1]  # "Error -3 while decompressing data: WHAT"
    rc, _, err = tixtest.run([args.tix, "summary", bad, "--no-cache"], env=dict(os.environ, TIX_INFLATE="zlib"))
    chk.check(rc == 2 and want is not None and err.rstrip().endswith(": " + want),
              "TIX_INFLATE=zlib: zlib's words for the corrupt stream (%s)" % want, err)
    env = {k: v for k, v in os.environ.items() if k != "TIX_INFLATE"}
    rc2, _, err2 = tixtest.run([args.tix, "summary", bad, "--no-cache"], env=env)
    chk.check(rc2 == 2 and "corrupt gzip data" in err2, "the default inflater also refuses it", err2)
    return chk.done()


if __name__ == "__main__":
    sys.exit(main())

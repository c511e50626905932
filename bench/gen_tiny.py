#!/usr/bin/env python3
"""Writes a trace of N tiny kernel events (the memory benchmark's input,
bench/run.sh's memory row): ~72 bytes each, 8 names, 2 streams, 1 us
apart.  Nothing else: the point is the number of GPU events.

    bench/gen_tiny.py N OUT.json
"""
import sys


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    chunk = 200000
    with open(out, "w") as f:
        f.write('{"traceEvents": [\n')
        for base in range(0, n, chunk):
            m = min(chunk, n - base)
            f.write(",\n".join('{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":%d,"ts":%d,"dur":1}'
                               % (i % 8, 7 + (i >> 3) % 2, i) for i in range(base, base + m)))
            f.write(",\n" if base + m < n else "\n")
        f.write("]}\n")


if __name__ == "__main__":
    main()

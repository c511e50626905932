#!/bin/sh
# scripts/gpu_bundle.sh: builds, on a machine with the CUDA 13 toolkit and no
# GPU, the folder tests/gpu/run_gpu_checks.sh runs from on a GPU host that
# may have no toolkit, no compiler and no network.  Owner: cupti_capture.
#
#   scripts/gpu_bundle.sh [--from BUILD] [--e2e FILE] OUT
#
#   --from BUILD  take tix, libtixcap.so and tixj-dump from a built tree
#                 (default: configure and build a Release tree in
#                 build-gpu-release/)
#   --e2e FILE    take the test program from FILE (default: compile
#                 tests/gpu/e2e_decode.cu for sm_90 and sm_120, and PTX)
#   OUT           the bundle (replaced); under the repository's build*/
#                 names it is git-ignored, so a device run can carry it
#
# OUT holds:
#   tix, tixj-dump, e2e_decode   wrappers: the programs below with the
#                                bundle's libraries first on the path
#   bin/                         the programs
#   lib/tix/libtixcap.so         the injection library
#   lib/cupti/libcupti.so.13     the libcupti it was built against (first on
#                                the path, so a newer one on the host does
#                                not make it refuse to capture)
#   lib/rt/                      the libraries tix needs beyond the C and
#                                C++ runtimes (simdjson, ncursesw, zlib, ...)
#   gpu/                         run_gpu_checks.sh and its judges
#   MANIFEST                     what was built, from which commit, with what
# Env: CUDA_HOME (default /usr/local/cuda), NVCC, JOBS.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FROM="" E2E=""
while [ $# -gt 0 ]; do
	case $1 in
	--from) FROM=$2; shift 2 ;;
	--e2e) E2E=$2; shift 2 ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	-*) echo "gpu_bundle.sh: unknown option $1" >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: gpu_bundle.sh [--from BUILD] [--e2e FILE] OUT" >&2; exit 1; }
OUT=$1
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-}
[ -n "$NVCC" ] || NVCC=$(command -v nvcc 2>/dev/null || echo "$CUDA/bin/nvcc")
say() { echo "gpu_bundle: $*"; }

if [ -z "$FROM" ]; then
	FROM=$ROOT/build-gpu-release
	say "building tix (Release) in $FROM"
	cmake -S "$ROOT" -B "$FROM" -DCMAKE_BUILD_TYPE=Release -DTIX_CUDA_ROOT="$CUDA" >"$FROM.log" 2>&1 &&
		cmake --build "$FROM" -j"${JOBS:-$(nproc)}" --target tix tixcap tixj-dump >>"$FROM.log" 2>&1 ||
		{ tail -20 "$FROM.log" >&2; echo "gpu_bundle: FAIL: building tix (see $FROM.log)" >&2; exit 1; }
fi
for f in cli/tix cupti_capture/libtixcap.so cupti_capture/tixj-dump; do
	[ -f "$FROM/$f" ] || { echo "gpu_bundle: FAIL: $FROM/$f is missing (a build with capture?)" >&2; exit 1; }
done
CUPTI=$(sed -n 's/^CUPTI_LIBRARY:FILEPATH=//p' "$FROM/CMakeCache.txt")
CUPTI=$(readlink -f "$CUPTI" 2>/dev/null || true)
[ -f "$CUPTI" ] || { echo "gpu_bundle: FAIL: the libcupti of $FROM ('$CUPTI') is missing" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib/tix" "$OUT/lib/cupti" "$OUT/lib/rt" "$OUT/gpu"
if [ -n "$E2E" ]; then
	cp "$E2E" "$OUT/bin/e2e_decode"
else
	[ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1 ||
		{ echo "gpu_bundle: FAIL: no nvcc (set NVCC or CUDA_HOME, or give --e2e)" >&2; exit 1; }
	say "compiling tests/gpu/e2e_decode.cu for sm_90, sm_120 (+ PTX) with $NVCC"
	"$NVCC" -O2 -std=c++17 -lineinfo \
		-gencode arch=compute_90,code=sm_90 -gencode arch=compute_120,code=sm_120 \
		-gencode arch=compute_90,code=compute_90 \
		-o "$OUT/bin/e2e_decode" "$ROOT/tests/gpu/e2e_decode.cu" -ldl
fi
cp "$FROM/cli/tix" "$FROM/cupti_capture/tixj-dump" "$OUT/bin/"
cp "$FROM/cupti_capture/libtixcap.so" "$OUT/lib/tix/"
cp "$CUPTI" "$OUT/lib/cupti/libcupti.so.13"
# smaller to carry; the symbols of libtixcap stay for a backtrace
command -v strip >/dev/null 2>&1 && strip --strip-debug "$OUT/bin/tix" "$OUT/bin/tixj-dump"

# The libraries the programs need beyond what every Linux host has (the C
# runtime, and the C++ runtime the programs need only GLIBCXX_3.4.21 of):
# copied under their SONAME.
for f in "$OUT/bin/tix" "$OUT/bin/tixj-dump" "$OUT/bin/e2e_decode" "$OUT/lib/tix/libtixcap.so"; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r soname path; do
	case "$soname" in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libutil.so.* | \
		libresolv.so.* | ld-linux* | libgcc_s.so.* | libstdc++.so.* | libcupti.so.* | libcuda.so.*) ;;
	*) cp -L "$path" "$OUT/lib/rt/$soname" ;;
	esac
done

for p in tix tixj-dump e2e_decode; do
	cat >"$OUT/$p" <<EOF
#!/bin/sh
# $p from this bundle, with its libraries first on the path (gpu_bundle.sh).
B=\$(cd "\$(dirname "\$0")" && pwd)
LD_LIBRARY_PATH=\${TIXGPU_CUPTI_DIR:-\$B/lib/cupti}:\$B/lib/rt\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
TIX_CAPTURE_LIB=\$B/lib/tix/libtixcap.so
export LD_LIBRARY_PATH TIX_CAPTURE_LIB
exec "\$B/bin/$p" "\$@"
EOF
	chmod +x "$OUT/$p"
done
cp "$ROOT/tests/gpu/run_gpu_checks.sh" "$ROOT/tests/gpu/check.py" "$ROOT/tests/gpu/check_kill.py" \
	"$ROOT/tests/gpu/overhead.py" "$OUT/gpu/"

glibc=$(for f in "$OUT"/bin/* "$OUT"/lib/*/*; do objdump -T "$f" 2>/dev/null; done |
	grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -1)
{
	echo "tix GPU bundle: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+changes')" \
		"built $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m) from $FROM"
	echo "tix: $("$OUT/tix" --version 2>&1 | head -1)"
	inc=$(sed -n 's/^CUPTI_INCLUDE_DIR:PATH=//p' "$FROM/CMakeCache.txt")
	echo "CUPTI: $CUPTI (API $(sed -n 's/^#define CUPTI_API_VERSION[ \t]*//p' "$inc/cupti_version.h" 2>/dev/null))"
	echo "e2e_decode: ${E2E:-$("$NVCC" --version 2>/dev/null | tail -1)}"
	echo "needs: ${glibc:-?} (C runtime), GLIBCXX_3.4.21 (C++ runtime), a CUDA 13 driver (580 or newer)"
	echo "carried: $(cd "$OUT/lib" && ls cupti rt | grep -v -e ':$' -e '^$' | tr '\n' ' ')"
	echo "size: $(du -sk "$OUT" | cut -f1) KiB"
} >"$OUT/MANIFEST"
cat "$OUT/MANIFEST"
say "ok: $OUT (run: sh $OUT/gpu/run_gpu_checks.sh)"

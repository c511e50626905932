# shellcheck shell=bash disable=SC2034 # sourced; sets WALK PEAK SHIM_CXX SHIM_BUILD_TYPE for the caller
# Sourced by bench/run.sh and bench/floor.sh: builds the bench helpers
# (bench/CMakeLists.txt) the way the tix binary measured was built, so that
# the bare simdjson walk, the floor, is compiled exactly as tix's shim: the
# same C++ compiler and build type as TIX's build folder (read from its
# CMakeCache.txt; the shim's own flags come from parse/shim_flags.cmake in
# both).  Sets WALK (the walk the shim's dispatcher would run on this CPU:
# haswell with AVX2, BMI2 and PCLMUL, else generic), PEAK (the sampler),
# SHIM_CXX (the compiler, with its version) and SHIM_BUILD_TYPE.
#
#   build_helpers REPO TIX OUT_DIR

build_helpers() {
	local repo=$1 tix=$2 out=$3 cache cxx="" type=Release
	cache=$(cd "$(dirname "$tix")/.." 2>/dev/null && pwd)/CMakeCache.txt
	if [ -f "$cache" ]; then
		cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$cache")
		if grep -q '^TIX_SHIM_CLANG:BOOL=ON$' "$cache" && ! grep -q '^TIX_SANITIZE:BOOL=ON$' "$cache"; then
			local clangxx # the shim's own compiler (parse/CMakeLists.txt)
			clangxx=$(sed -n 's/^TIX_CLANGXX:[A-Z]*=//p' "$cache")
			case $clangxx in "" | *NOTFOUND) ;; *) cxx=$clangxx ;; esac
		fi
		type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache")
		[ -n "$type" ] || type=Release
	else
		echo "bench: no CMakeCache.txt beside $tix: helpers built with the default C++ compiler, -O3" >&2
	fi
	local args=(-DCMAKE_BUILD_TYPE="$type")
	[ -n "$cxx" ] && args+=(-DCMAKE_CXX_COMPILER="$cxx")
	mkdir -p "$out"
	# a helper folder configured with another compiler is started again
	if [ -f "$out/CMakeCache.txt" ] && [ -n "$cxx" ] &&
		! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=$cxx\$" "$out/CMakeCache.txt"; then
		rm -rf "$out"
		mkdir -p "$out"
	fi
	if ! cmake -S "$repo/bench" -B "$out" "${args[@]}" >"$out.log" 2>&1 ||
		! cmake --build "$out" -j2 >>"$out.log" 2>&1; then
		echo "bench: building the helpers failed, see $out.log" >&2
		return 1
	fi
	SHIM_CXX="$("${cxx:-c++}" --version | head -n 1)"
	SHIM_BUILD_TYPE=$type
	WALK=$out/tix_bench_walk
	if [ -x "$out/tix_bench_walk_generic" ]; then
		local flags f
		flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
		for f in avx2 bmi2 pclmulqdq; do # json_shim_dispatch.c's rule
			grep -qw "$f" <<<"$flags" || WALK=$out/tix_bench_walk_generic
		done
	fi
	PEAK=$out/tix_bench_peak
}

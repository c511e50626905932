# How the simdjson shim (json_shim.cpp) is compiled, defined once: parse/
# builds the shim with it and bench/ builds the bare simdjson walks with it
# (the floor tix index is measured against, docs/PERFORMANCE.md), so that
# both run the same simdjson kernel under the same optimisation.
#
# tix_shim_flags(TARGET VARIANT): VARIANT is haswell (AVX2, BMI2, PCLMUL:
# -march=haswell, simdjson's haswell kernel) or generic (any x86-64 or other
# CPU: simdjson's fallback kernel).  On-Demand runs the kernel chosen at
# compile time, so the variant is the kernel; json_shim_dispatch.c picks the
# haswell one when the CPU has those three.  -O3 -DNDEBUG in every build
# type but Debug: without NDEBUG simdjson runs its development checks
# (the walk measured 2.5x slower so, issue 23).
function(tix_shim_flags target variant)
  if(NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
    target_compile_options(${target} PRIVATE -O3)
    target_compile_definitions(${target} PRIVATE NDEBUG)
  endif()
  if(variant STREQUAL "haswell")
    target_compile_options(${target} PRIVATE -march=haswell)
  endif()
endfunction()

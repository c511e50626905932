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

# tix_shim_clang_object(VARIANT CLANGXX OUT_VAR): the shim compiled by
# CLANGXX (-DTIX_SHIM_CLANG=ON, parse/CMakeLists.txt) into an object file
# of the build folder, with the flags tix_shim_flags gives and the ones the
# C++ targets get (C++17, PIC, warnings, simdjson's definitions); OUT_VAR
# is set to its path.
function(tix_shim_clang_object variant clangxx out_var)
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/json_shim_${variant}.clang.o)
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/json_shim.cpp)
  set(flags -std=gnu++17 -fPIC -g -Wall -Wextra -Wshadow -Wno-unused-parameter
      -D_GNU_SOURCE -DSHIM_VARIANT=${variant} -I${CMAKE_SOURCE_DIR} ${SIMDJSON_CFLAGS})
  if(TIX_WERROR)
    list(APPEND flags -Werror)
  endif()
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    list(APPEND flags -O0)
  else()
    list(APPEND flags -O3 -DNDEBUG)
  endif()
  if(variant STREQUAL "haswell")
    list(APPEND flags -march=haswell)
  endif()
  add_custom_command(OUTPUT ${obj}
    COMMAND ${clangxx} ${flags} -MD -MF ${obj}.d -c ${src} -o ${obj}
    DEPENDS ${src} ${CMAKE_CURRENT_SOURCE_DIR}/json_shim.h
    DEPFILE ${obj}.d
    COMMENT "Building the ${variant} simdjson shim with ${clangxx}"
    VERBATIM)
  set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(${out_var} ${obj} PARENT_SCOPE)
endfunction()

# cupti_capture/cupti_gate.cmake (owner: cupti_capture): whether this build
# can have `tix capture`, decided once, from the CUPTI that TIX_CUDA_ROOT
# holds.  Included by the top-level CMakeLists.txt.  Sets:
#   TIX_HAVE_CUPTI        ON when capture is built
#   CUPTI_INCLUDE_DIR, CUPTI_LIBRARY, TIX_CUPTI_API_VERSION (found, or empty)
#   TIX_CUPTI_WHY_NOT     when OFF: one sentence for `tix capture` to print
#                         (a compile definition: no ';', CMake's list separator)
#
# Why a version gate: cupti_capture uses names that exist only from the CUDA
# 13.0 CUPTI on (cupti_version.h CUPTI_API_VERSION 130000 and later):
# cuptiSubscribe_v2 and CUpti_SubscriberParams (cupti_callbacks.h, 13.0),
# CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 (cupti_runtime_cbid.h,
# 13.0: what nvcc 13 compiles <<<...>>> into) and CUpti_ActivityKernel10
# (cupti_activity.h, 13.0).  A CUDA 12 toolkit would fail to compile them, so
# it builds tix without capture instead, and says why.

# Where to look: the toolkit's include/ and lib64/ (or lib/), and the
# extras/CUPTI/ folders of a full (runfile / .deb) toolkit.
set(TIX_CUPTI_HINTS_INC ${TIX_CUDA_ROOT}/include ${TIX_CUDA_ROOT}/extras/CUPTI/include)
set(TIX_CUPTI_HINTS_LIB ${TIX_CUDA_ROOT}/lib64 ${TIX_CUDA_ROOT}/lib
                        ${TIX_CUDA_ROOT}/extras/CUPTI/lib64 ${TIX_CUDA_ROOT}/extras/CUPTI/lib)

# A change of TIX_CUDA_ROOT must look again, not reuse what an earlier
# configure cached.
if(NOT "${TIX_CUDA_ROOT}" STREQUAL "${TIX_CUPTI_SEARCHED_ROOT}")
  unset(CUPTI_INCLUDE_DIR CACHE)
  unset(CUPTI_LIBRARY CACHE)
  set(TIX_CUPTI_SEARCHED_ROOT "${TIX_CUDA_ROOT}" CACHE INTERNAL "TIX_CUDA_ROOT CUPTI was looked for in")
endif()
find_path(CUPTI_INCLUDE_DIR cupti.h HINTS ${TIX_CUPTI_HINTS_INC})
find_library(CUPTI_LIBRARY cupti HINTS ${TIX_CUPTI_HINTS_LIB})

# The CUPTI API version in DIR/cupti_version.h ("#define CUPTI_API_VERSION
# 130001"), or empty.
function(tix_cupti_api_version dir out)
  set(v "")
  if(EXISTS "${dir}/cupti_version.h")
    file(STRINGS "${dir}/cupti_version.h" line REGEX "^#define[ \t]+CUPTI_API_VERSION[ \t]+[0-9]+")
    string(REGEX REPLACE "^#define[ \t]+CUPTI_API_VERSION[ \t]+([0-9]+).*" "\\1" v "${line}")
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

set(TIX_HAVE_CUPTI OFF)
set(TIX_CUPTI_API_VERSION "")
set(TIX_CUPTI_WHY_NOT "")
if(NOT CUPTI_INCLUDE_DIR OR NOT CUPTI_LIBRARY)
  set(TIX_CUPTI_WHY_NOT "no cupti.h and libcupti under TIX_CUDA_ROOT (${TIX_CUDA_ROOT}) at build time")
else()
  tix_cupti_api_version("${CUPTI_INCLUDE_DIR}" TIX_CUPTI_API_VERSION)
  if(TIX_CUPTI_API_VERSION STREQUAL "")
    set(TIX_CUPTI_WHY_NOT "${CUPTI_INCLUDE_DIR}/cupti_version.h gives no CUPTI_API_VERSION")
  elseif(TIX_CUPTI_API_VERSION LESS 130000)
    math(EXPR major "${TIX_CUPTI_API_VERSION} / 10000")
    set(TIX_CUPTI_WHY_NOT "the CUPTI at ${CUPTI_INCLUDE_DIR} has API version ${TIX_CUPTI_API_VERSION} (CUDA ${major}), and capture needs the CUDA 13 CUPTI (130000 or later)")
  else()
    set(TIX_HAVE_CUPTI ON)
  endif()
endif()
if(TIX_HAVE_CUPTI)
  message(STATUS "CUPTI ${TIX_CUPTI_API_VERSION}: ${CUPTI_LIBRARY} (capture enabled)")
else()
  message(STATUS "tix capture will be unavailable: ${TIX_CUPTI_WHY_NOT}")
endif()

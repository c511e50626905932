# Writes the completion scripts of the tix just built: `tix completion bash`
# to OUT/tix and `tix completion zsh` to OUT/_tix (cli/CMakeLists.txt runs
# it after each build of tix; `cmake --install` copies them).
# Usage: cmake -DTIX=path/to/tix -DOUT=folder -P completions.cmake
file(MAKE_DIRECTORY "${OUT}")
foreach(shell bash zsh)
  if(shell STREQUAL "bash")
    set(file "${OUT}/tix")
  else()
    set(file "${OUT}/_tix")
  endif()
  execute_process(COMMAND "${TIX}" completion ${shell} OUTPUT_FILE "${file}.tmp"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TIX} completion ${shell} failed: ${rc}")
  endif()
  file(RENAME "${file}.tmp" "${file}")
endforeach()

# tix_test_costs(NAME=SECONDS ...): the longest tests start first (ctest -j
# runs the highest COST first; the figures are their seconds under ASan), so
# that none is left running alone at the end of a run: in CI that tail was
# minutes.  A test the folder did not define (its tools missing) is passed
# over.  Called at the end of each tests/*/CMakeLists.txt, where the tests
# are defined (set_tests_properties needs their folder).
function(tix_test_costs)
  foreach(pair ${ARGN})
    string(REPLACE "=" ";" pair ${pair})
    list(GET pair 0 name)
    list(GET pair 1 seconds)
    if(TEST ${name})
      set_tests_properties(${name} PROPERTIES COST ${seconds})
    endif()
  endforeach()
endfunction()

# The sources of the index module, in one list: index/CMakeLists.txt builds
# them into tix_index, fuzz/CMakeLists.txt compiles them again with the
# fuzzers' instrumentation (two lists drifted apart once: the fuzz build
# stopped linking).  Paths relative to index/.
set(TIX_INDEX_SOURCES
  build/builder.c
  build/store.c
  build/launches.c
  build/parents.c
  build/place.c
  build/write.c
  build/aggregate.c
  build/op_totals.c
  build/sort.c
  reader.c
  check.c
  find.c
  export.c
  names.c
  build/graph_match.c
  common.c
  build/capture.c
  traffic.c
  build/name_forms.c
  build/name_rows.c
  build/graph.c)

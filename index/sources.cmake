# The sources of the index module, in one list: index/CMakeLists.txt builds
# them into tix_index, fuzz/CMakeLists.txt compiles them again with the
# fuzzers' instrumentation (two lists drifted apart once: the fuzz build
# stopped linking).  Paths relative to index/.
set(TIX_INDEX_SOURCES
  builder.c
  store.c
  link.c
  parents.c
  place.c
  write.c
  aggregate.c
  op_totals.c
  sort.c
  reader.c
  check.c
  find.c
  export.c
  names.c
  graph_match.c
  common.c
  capture.c
  traffic.c
  name_forms.c
  name_rows.c
  graph.c
  text.c
  outfile.c)

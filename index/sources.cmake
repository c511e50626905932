# The sources of the index module, in one list: index/CMakeLists.txt builds
# them into tix_index, fuzz/CMakeLists.txt compiles them again with the
# fuzzers' instrumentation (two lists drifted apart once: the fuzz build
# stopped linking).  Paths relative to index/.
set(TIX_INDEX_SOURCES
  # the reading half: the reader, its check, the queries
  common.c
  names.c
  reader.c
  dump.c
  check.c
  find.c
  export.c
  traffic.c
  perf_model.c
  peaks.c
  findings.c
  findings_outcomes.c
  findings_roofline.c
  gaps.c
  text.c
  outfile.c
  # the build (index/build/): collecting, the finish's driver and services,
  # then its phases in the order finish.c runs them
  build/builder.c
  build/store.c
  build/capture.c
  build/finish.c
  build/linker.c
  build/sort.c
  build/place.c
  build/parents.c
  build/launches.c
  build/steps.c
  build/graph.c
  build/graph_match.c
  build/aggregate.c
  build/op_totals.c
  build/breakdown.c
  build/op_shapes.c
  build/name_forms.c
  build/name_rows.c
  build/write.c)

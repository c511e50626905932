/*
 * The phases of the finish, in the order finish.c's table runs them; it is
 * their only caller (each phase's own file includes this header for its
 * prototype, and calls no other phase).  Each takes the linker that the
 * phases before it filled (linker.h says which fields each writes) and
 * returns 0, or -1 with err set.  Private to index/build/.
 */
#ifndef TIX_INDEX_BUILD_PHASES_H
#define TIX_INDEX_BUILD_PHASES_H

#include "index/build/linker.h"

/* place.c: the final track order (tracks, track_remap), then the rows
 * scattered by track into the output file and sorted by time (rows, corr,
 * long_durs, first_ns, last_ns).  The second collector's rows are
 * scattered on a thread of their own. */
int linker_place(struct linker *L, struct tix_error *err);

/* parents.c: each CPU-side row linked to its innermost container on its
 * thread, and the chain table where links do not give the ancestors; on
 * two threads (linker_two_threads), the calling thread also running
 * `alongside`, which must not write CPU-side rows (the driver gives it
 * linker_link_by_correlation). */
int linker_parents(struct linker *L, int (*alongside)(struct linker *, struct tix_error *),
                   struct tix_error *err);

/* launches.c: GPU rows linked to their launch calls (docs/FORMAT.md,
 * "Links"): by correlation id (beside parents); by ac2g flow, for the GPU
 * work the ids left unlinked (only when some are: the driver merges the
 * second collector's flows first); then the marks: NO_LAUNCH and
 * GRAPH_REPLAY, and the warnings the launches call for. */
int linker_link_by_correlation(struct linker *L, struct tix_error *err);
int linker_link_by_flows(struct linker *L, struct tix_error *err);
int linker_mark_launches(struct linker *L, struct tix_error *err);

/* steps.c: the steps by their markers (the default rules or
 * --step-marker), else one whole-trace step; then the GPU work launched
 * before the trace, in a step of its own. */
int linker_steps(struct linker *L, struct tix_error *err);

/* graph.c: kernels replayed from CUDA graphs attributed to the launches
 * recorded while their graphs were captured (the capture indexes in
 * opts.captures), with the quality of each match. */
int linker_graph(struct linker *L, struct tix_error *err);

/* op_totals.c: the aggregate phase.  Kernel groups, their members and the
 * steps' totals (linker_aggregate_groups, aggregate.c), beside the list of
 * the CPU ops on a second thread; then the GPU time beneath each op and
 * each row's gpu_beneath, on two threads.  linker_aggregate is the only
 * caller of linker_aggregate_groups. */
int linker_aggregate(struct linker *L, struct tix_error *err);
int linker_aggregate_groups(struct linker *L, struct tix_error *err);

/* breakdown.c: each step's and the trace's GPU time breakdown, idle by
 * cause over all streams and per stream, synchronising calls, launch-bound
 * stretches (docs/FINDINGS.md, sections 1 and 2). */
int linker_breakdown(struct linker *L, struct tix_error *err);

/* op_shapes.c: the op model over each op's instances, and the op-shape
 * groups overall and per step with their kernel groups (sections 3, 4). */
int linker_op_shapes(struct linker *L, struct tix_error *err);

/* name_forms.c: demangled and distinct short names of the GPU work groups. */
int linker_name_forms(struct linker *L, struct tix_error *err);

/* name_rows.c: the rows of each event name (NAMES, NAME_ROWS). */
int linker_name_rows(struct linker *L, struct tix_error *err);

/* write.c: the checksums of ROWS, final once aggregate has set
 * gpu_beneath (summed beside the phases after it, which only read the
 * rows); then every section around the rows, and the header. */
int linker_sum_rows(struct linker *L, struct tix_error *err);
int linker_write(struct linker *L, struct tix_error *err);

#endif /* TIX_INDEX_BUILD_PHASES_H */

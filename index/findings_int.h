/* What index/findings.c (the rules) shares with index/findings_outcomes.c
 * (what a fix saved of each finding) and index/findings_roofline.c (a
 * shape's and an op's figures): the one definition of a step's basis, of a
 * shape's figures per step and of its cost, so an outcome is measured as
 * its finding was.  Not a door for anyone else: index/findings.h is. */
#ifndef TIX_INDEX_FINDINGS_INT_H
#define TIX_INDEX_FINDINGS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "index/findings.h"

/* Text cut to its buffer: a finding's words are cut, never its numbers,
 * which the JSON keeps whole. */
__attribute__((format(printf, 3, 4))) void findings_put_text(char *out, size_t cap, const char *fmt, ...);
/* The real steps averaged (s TIX_NONE), or step s: its basis and its
 * breakdown (avg). */
void findings_step_basis(const struct tix_index *ix, uint32_t s, struct tix_step_basis *b,
                         struct tix_breakdown *avg);
/* Calls and GPU time per step of overall shape `shape` (step TIX_NONE: the
 * real steps averaged). */
void findings_shape_per_step(const struct tix_index *ix, uint32_t shape, uint32_t step, double *calls,
                             int64_t *gpu_ns);
/* What one call of op-shape group o costs, from the op models (flops and
 * bytes -1 where they cannot say). */
void findings_shape_cost(const struct tix_index *ix, const struct tix_op_shape *o, struct tix_op_cost *c);

#endif /* TIX_INDEX_FINDINGS_INT_H */

/*
 * findings: why a step is slow and what a fix could save, as rules over what
 * the build computed (docs/FINDINGS.md is the long form of every rule here).
 * The door for the faces' findings, beside index/index.h: index/view/
 * turns them into rows, `tix findings` prints them, the TUI's Findings
 * view draws them.
 *
 *   tix_findings_compute(ix, &opts, &f, &err)   ranked, savings per step
 *   ... f->items[0 .. f->n) ...
 *   tix_findings_free(f)
 */
#ifndef TIX_INDEX_FINDINGS_H
#define TIX_INDEX_FINDINGS_H

#include <stdint.h>

#include "index/index.h"

/* The thresholds of the rules (docs/FINDINGS.md, section 6, says why). */
#define TIX_FIND_MIN_SHARE 0.02  /* an op-shape group under 2% of the GPU time is noise */
#define TIX_FIND_BW_LOW 0.60     /* a memory-bound op under 60% of the peak bandwidth */
#define TIX_FIND_REACHABLE 0.70  /* what a tuned GEMM or attention kernel reaches */
#define TIX_FIND_REPEAT_MIN 8    /* the same copy this many times a step is "repeated" */
#define TIX_FIND_IDLE_MIN 0.05   /* idle of one cause under 5% of the span is noise */
#define TIX_FIND_CPU_BOUND 0.70  /* a step whose GPU is busy under 70% of its wall time */

/* The rules: name (JSON "rule"), issue letter, what it is about. */
#define TIX_RULES(X)                                                         \
	X(MEMORY_BOUND, "memory_bound", 'a', "a memory-bound op below its peak bandwidth") \
	X(REPEATED_COPY, "repeated_copy", 'b', "the same copy or cast many times a step") \
	X(COMPUTE_LOW, "compute_low", 'c', "a GEMM, attention or convolution far below its roofline") \
	X(IDLE_HOST, "idle_host", 'd', "the GPU waits for the CPU to launch work") \
	X(IDLE_KERNEL, "idle_kernel", 'd', "short gaps between back-to-back kernels") \
	X(LAUNCH_BOUND, "launch_bound", 'd', "kernels shorter than their launch calls, in a row") \
	X(SYNC, "sync", 'e', "synchronising calls and pageable copies inside steps") \
	X(EXPOSED_COMM, "exposed_comm", 'f', "communication not hidden under compute") \
	X(STRAGGLER, "straggler", 'f', "one rank the others wait for") \
	X(CPU_BOUND, "cpu_bound", 'g', "steps whose GPU is idle much of their wall time")

enum tix_rule {
#define TIX_RULE_ENUM(e, name, letter, what) TIX_RULE_##e,
	TIX_RULES(TIX_RULE_ENUM)
#undef TIX_RULE_ENUM
	TIX_RULE_COUNT
};
const char *tix_rule_name(enum tix_rule r);
const char *tix_rule_what(enum tix_rule r);

/* A figure of a finding's evidence: a JSON key, its value (numbers; text
 * when text is not NULL) and how it reads. */
struct tix_evidence {
	const char *key;           /* "calls_per_step" */
	double value;              /* NAN: unknown */
	const char *unit;          /* "ns", "B", "B/s", "FLOP", "FLOP/s", "", "ratio" */
	char text[96];             /* a text value, "" for numbers */
};
#define TIX_EVIDENCE_MAX 16
#define TIX_FINDING_OPS 8

struct tix_finding {
	enum tix_rule rule;
	char title[320];           /* one line in plain words */
	int64_t gpu_ns;            /* the time it is about, per step */
	double share;              /* of the step's GPU time, or its wall time (share_of_wall) */
	int share_of_wall;
	int64_t saving_ns;         /* what a fix could save, per step (>= 0, <= gpu_ns) */
	char basis[320];           /* how: the formula with its numbers */
	uint32_t shape;            /* the op-shape group (overall), TIX_NONE */
	uint32_t group;            /* its largest kernel group (overall), TIX_NONE */
	uint32_t op;               /* the op (tix_op numbering), TIX_NONE */
	uint32_t row;              /* an example: op instance, the GPU row after a gap, a sync call */
	uint32_t step;             /* the step asked for, TIX_NONE */
	uint32_t ops[TIX_FINDING_OPS]; /* op names, outermost first (strings) */
	uint32_t nops;
	int overlaps[4];           /* indexes in items of findings about the same time */
	int noverlaps;
	struct tix_evidence ev[TIX_EVIDENCE_MAX];
	int nev;
};

/* What a step averages to (or the step asked for): the figures the rules
 * compare with. */
struct tix_step_basis {
	uint32_t steps;            /* real steps averaged (1 with --step) */
	int64_t wall_ns, gpu_ns, busy_ns, span_ns;
};

struct tix_findings_opts {
	uint32_t step;             /* one step (tix_step_get numbering), TIX_NONE: the real steps */
	const char *peak_bw;       /* --peak-bw, NULL */
	const char *peak_flops;    /* --peak-flops, NULL */
};

struct tix_findings {
	struct tix_device device;
	uint32_t step;             /* as asked */
	struct tix_step_basis basis;
	/* the step's breakdown, or the real steps' averaged (its span_start 0,
	 * span_end the span's length) */
	struct tix_breakdown per_step;
	struct tix_finding *items; /* ranked, largest saving first */
	uint32_t n;
	int64_t total_saving_ns;   /* counted once (docs/FINDINGS.md, section 6) */
	char total_basis[200];
	char notes[8][200];        /* what could not be computed, and why */
	int nnotes;
};

/* The findings of ix; 0, or -1 with err set (a bad --peak-flops, out of
 * memory).  *out is freed with tix_findings_free. */
int tix_findings_compute(const struct tix_index *ix, const struct tix_findings_opts *o,
                         struct tix_findings **out, struct tix_error *err);
void tix_findings_free(struct tix_findings *f);
/* Adds f->items[n] (a rule computed elsewhere, the straggler of a rank
 * set), keeping the ranking and the total; 0, or -1 out of memory. */
int tix_findings_add(struct tix_findings *f, const struct tix_finding *item);

/* What NEW did about one of BASE's findings (docs/FINDINGS.md, section 8):
 * the time the finding is about, per step, on each side, matched by what
 * it is about (the op and its dtypes, whatever its shape became; the idle
 * of the same cause; ...). */
struct tix_finding_outcome {
	int64_t base_ns;           /* BASE: the finding's gpu_ns */
	int64_t new_ns;            /* NEW: the same thing per step, -1: not found */
	int64_t saved_ns;          /* base_ns - new_ns (negative: it grew); when new_ns >= 0 */
	char matched[200];         /* how NEW's side was found, in a few words */
};
/* One outcome per finding of fb (BASE's, computed with the options o,
 * whose step NEW is taken at too), into out[0 .. fb->n). */
void tix_findings_outcomes(const struct tix_index *base, const struct tix_findings *fb,
                           const struct tix_index *nw, const struct tix_findings_opts *o,
                           struct tix_finding_outcome *out);

/* An op-shape group's figures per step (averaged over the real steps, or
 * of one step): what its findings and the faces quote. */
struct tix_shape_figures {
	double calls;              /* per step */
	int64_t gpu_ns;            /* per step */
	struct tix_op_cost cost;   /* of one call */
	double bytes_per_s, flops_per_s;   /* achieved, -1 unknown */
	double roofline_ns;        /* at the device's peaks, -1 unknown */
	double peak_fraction;      /* roofline_ns / gpu_ns, -1 unknown (or above 1) */
	const char *bound;         /* "compute", "memory", NULL */
	enum tix_peak peak_as;     /* the compute peak used (TF32 for fast FP32) */
};
void tix_shape_figures(const struct tix_index *ix, const struct tix_device *d, uint32_t shape,
                       uint32_t step, struct tix_shape_figures *out);

/* An op's roofline over all its modelled instances (summary --by op). */
struct tix_op_roofline {
	int modelled;              /* some instance is */
	double flops, bytes;       /* summed, -1 unknown */
	int64_t gpu_ns;
	uint32_t calls;
	double flops_per_s, bytes_per_s, peak_fraction; /* -1 unknown */
	const char *bound;
	const char *why_not;       /* when a figure is unknown */
};
void tix_op_roofline(const struct tix_index *ix, const struct tix_device *d, uint32_t op,
                     struct tix_op_roofline *out);

#endif /* TIX_INDEX_FINDINGS_H */

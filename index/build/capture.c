/* What captured a replayed kernel: the chains of CPU frames (ops, NVTX
 * ranges, annotations) seen while a CUDA graph was captured, stored once
 * each and referred to from the details of the kernels they explain.
 * Producers hand them over with their events (the capture journal knows
 * them exactly); a JSON replay trace gets them from its capture traces in
 * the link phase (graph.c). */
#include "index/build/builder_int.h"
#include "index/grow.h"

#include <stdlib.h>
#include <string.h>

void capture_store_done(struct capture_store *s)
{
	free(s->frames);
	free(s->chains);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static uint64_t chain_hash(const struct tix_capture_frame *f, uint32_t n, uint32_t source)
{
	return tix_hash64(f, (size_t)n * sizeof(*f), source);
}

static int rehash(struct capture_store *s)
{
	uint32_t ns = s->nslots ? s->nslots * 2 : 256;
	uint32_t *slots = calloc(ns, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t c = 0; c < s->nchains; c++) {
		const struct tix_capture_chain_disk *ch = &s->chains[c];
		uint32_t j = (uint32_t)chain_hash(s->frames + ch->first, ch->count, ch->source) & (ns - 1);
		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = c + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = ns;
	return 0;
}

uint32_t capture_store_add(struct capture_store *s, struct intern *strings,
                           const struct tix_capture_in *in)
{
	if (s->nchains + 1 >= s->nslots / 2 && rehash(s) != 0)
		return TIX_NONE;
	if (tix_grow32(&s->frames, &s->frames_cap, (size_t)s->nframes + in->nframes + 1, sizeof(*s->frames),
	               256) != 0)
		return TIX_NONE;
	/* Intern the frames at the end of the array; keep them only if the
	 * chain is new. */
	struct tix_capture_frame *f = s->frames + s->nframes;
	for (uint32_t i = 0; i < in->nframes; i++) {
		const struct tix_frame_in *fi = &in->frames[i];
		memset(&f[i], 0, sizeof(f[i]));
		f[i].name = intern_add(strings, fi->name.ptr ? fi->name.ptr : "", fi->name.len);
		f[i].dims = fi->dims.len ? intern_add(strings, fi->dims.ptr, fi->dims.len) : TIX_NONE;
		f[i].types = fi->types.len ? intern_add(strings, fi->types.ptr, fi->types.len) : TIX_NONE;
		f[i].kind = (uint8_t)fi->kind;
		if (f[i].name == TIX_NONE || (fi->dims.len && f[i].dims == TIX_NONE) ||
		    (fi->types.len && f[i].types == TIX_NONE))
			return TIX_NONE;
	}
	uint32_t source = intern_add(strings, in->source.ptr ? in->source.ptr : "", in->source.len);
	if (source == TIX_NONE)
		return TIX_NONE;
	uint32_t j = (uint32_t)chain_hash(f, in->nframes, source) & (s->nslots - 1);
	for (; s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		const struct tix_capture_chain_disk *ch = &s->chains[s->slots[j] - 1];
		if (ch->count == in->nframes && ch->source == source &&
		    memcmp(s->frames + ch->first, f, (size_t)in->nframes * sizeof(*f)) == 0)
			return s->slots[j] - 1;
	}
	if (tix_grow32(&s->chains, &s->chains_cap, (size_t)s->nchains + 1, sizeof(*s->chains), 64) != 0)
		return TIX_NONE;
	struct tix_capture_chain_disk *ch = &s->chains[s->nchains];
	memset(ch, 0, sizeof(*ch));
	ch->first = s->nframes;
	ch->count = in->nframes;
	ch->source = source;
	s->nframes += in->nframes;
	s->slots[j] = ++s->nchains;
	return s->nchains - 1;
}

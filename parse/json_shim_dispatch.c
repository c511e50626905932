/* Picks the simdjson build of the shim that this CPU runs best (see
 * json_shim.cpp) once, and forwards the shim's C API to it. */
#include "parse/json_shim.h"

#define VARIANT_DECLS(v)                                                                   \
	struct shim_parser *shim_new_##v(void);                                             \
	void shim_free_##v(struct shim_parser *p);                                          \
	size_t shim_padding_##v(void);                                                      \
	int shim_parse_events_##v(struct shim_parser *p, const char *buf, size_t len,      \
	                          shim_event_fn fn, void *ctx, struct shim_fail *fail);    \
	int shim_parse_one_##v(struct shim_parser *p, const char *buf, size_t len,         \
	                       shim_event_fn fn, void *ctx, struct shim_fail *fail);
VARIANT_DECLS(generic)
#ifdef TIX_SHIM_HASWELL
VARIANT_DECLS(haswell)
#endif

static int use_haswell(void)
{
#ifdef TIX_SHIM_HASWELL
	static int cached = -1;
	if (cached < 0) {
		__builtin_cpu_init();
		cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
		         __builtin_cpu_supports("pclmul");
	}
	return cached;
#else
	return 0;
#endif
}

#ifdef TIX_SHIM_HASWELL
#define PICK(fn, ...) (use_haswell() ? fn##_haswell(__VA_ARGS__) : fn##_generic(__VA_ARGS__))
#else
#define PICK(fn, ...) fn##_generic(__VA_ARGS__)
#endif

struct shim_parser *shim_new(void) { return use_haswell() ? PICK(shim_new) : shim_new_generic(); }
void shim_free(struct shim_parser *p)
{
#ifdef TIX_SHIM_HASWELL
	if (use_haswell()) {
		shim_free_haswell(p);
		return;
	}
#endif
	shim_free_generic(p);
}
size_t shim_padding(void) { return 64 > shim_padding_generic() ? 64 : shim_padding_generic(); }
int shim_parse_events(struct shim_parser *p, const char *buf, size_t len, shim_event_fn fn,
                      void *ctx, struct shim_fail *fail)
{
	return PICK(shim_parse_events, p, buf, len, fn, ctx, fail);
}
int shim_parse_one(struct shim_parser *p, const char *buf, size_t len, shim_event_fn fn,
                   void *ctx, struct shim_fail *fail)
{
	return PICK(shim_parse_one, p, buf, len, fn, ctx, fail);
}

// The only C++ in tix: simdjson On-Demand behind the C API of json_shim.h.
// One pass over each event object, no DOM; strings are views into the input
// or into simdjson's per-document string buffer.
#include "parse/json_shim.h"

extern "C" {
#include "index/sink.h" // tix_json_buf
}

#include <simdjson.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

using namespace simdjson;

// Built twice (see parse/CMakeLists.txt): On-Demand uses the simdjson
// kernel chosen at compile time, so one copy is compiled for AVX2 machines
// and one for any x86-64, and json_shim_dispatch.c picks at run time.
#ifndef SHIM_VARIANT
#define SHIM_VARIANT generic
#endif
#define SHIM_CAT2(a, b) a##_##b
#define SHIM_CAT(a, b) SHIM_CAT2(a, b)
#define SHIM(name) SHIM_CAT(name, SHIM_VARIANT)

// The rebuilt args text: a plain growable buffer, since std::string's
// append showed in profiles.
struct text_buf {
	char *p = nullptr;
	size_t len = 0, cap = 0;
	~text_buf() { free(p); }
	bool fit(size_t more)
	{
		if (len + more <= cap)
			return true;
		size_t ncap = cap ? cap * 2 : 4096;
		while (ncap < len + more)
			ncap *= 2;
		char *np = (char *)realloc(p, ncap);
		if (!np)
			return false;
		p = np;
		cap = ncap;
		return true;
	}
	void put(const char *s, size_t n)
	{
		if (fit(n)) {
			memcpy(p + len, s, n);
			len += n;
		}
	}
	void put(char c) { put(&c, 1); }
};

struct shim_parser {
	ondemand::parser parser;
	text_buf args;        // rebuilt args text, reused
	std::string meta;     // unescaped args.name of M events
	const char *base = nullptr;
};

extern "C" struct shim_parser *SHIM(shim_new)(void)
{
	return new (std::nothrow) shim_parser();
}

extern "C" void SHIM(shim_free)(struct shim_parser *p)
{
	delete p;
}

extern "C" size_t SHIM(shim_padding)(void)
{
	return SIMDJSON_PADDING;
}

static shim_str view(std::string_view s)
{
	return shim_str{s.data(), s.size()};
}

static std::string_view trim_ws(std::string_view s)
{
	while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
		s.remove_suffix(1);
	return s;
}

// Raw JSON text of any value (consumes it).
static error_code raw_of(ondemand::value &v, std::string_view &out)
{
	ondemand::json_type t;
	auto err = v.type().get(t);
	if (err)
		return err;
	if (t == ondemand::json_type::array) {
		ondemand::array a;
		if ((err = v.get_array().get(a)))
			return err;
		return a.raw_json().get(out);
	}
	if (t == ondemand::json_type::object) {
		ondemand::object o;
		if ((err = v.get_object().get(o)))
			return err;
		return o.raw_json().get(out);
	}
	out = trim_ws(v.raw_json_token());
	return SUCCESS;
}

static bool to_i64(std::string_view s, int64_t &out)
{
	if (s.size() >= 2 && s.front() == '"')
		s = s.substr(1, s.size() - 2);
	if (!s.empty() && s.size() <= 18) { // plain digits: no strtoll
		uint64_t v = 0;
		size_t i = s[0] == '-' ? 1 : 0;
		bool ok = i < s.size();
		for (; ok && i < s.size(); i++) {
			unsigned d = (unsigned char)s[i] - '0';
			ok = d <= 9;
			v = v * 10 + d;
		}
		if (ok) {
			out = s[0] == '-' ? -(int64_t)v : (int64_t)v;
			return true;
		}
	}
	if (s.empty() || s.size() > 30)
		return false;
	char buf[32];
	memcpy(buf, s.data(), s.size());
	buf[s.size()] = '\0';
	char *end;
	errno = 0;
	double d;
	long long v = strtoll(buf, &end, 10);
	if (*end == '\0' && errno == 0) {
		out = v;
		return true;
	}
	d = strtod(buf, &end); // "12.0" counts, within range
	if (*end == '\0' && d >= -9.2e18 && d <= 9.2e18) {
		out = (int64_t)d;
		return true;
	}
	return false;
}

static int32_t to_i32(std::string_view s, int32_t dflt)
{
	int64_t v;
	if (!to_i64(s, v) || v < INT32_MIN || v > INT32_MAX)
		return dflt;
	return (int32_t)v;
}

static float to_float(std::string_view s)
{
	// "4355.4375", "100": digits with at most 9 after the point, no strtod
	{
		uint64_t m = 0;
		size_t i = 0, frac = 0, ndig = 0;
		while (i < s.size() && (unsigned)(s[i] - '0') <= 9 && ndig < 18)
			m = m * 10 + (unsigned)(s[i++] - '0'), ndig++;
		if (i < s.size() && s[i] == '.' && ndig) {
			i++;
			while (i < s.size() && (unsigned)(s[i] - '0') <= 9 && frac < 9 && ndig < 18)
				m = m * 10 + (unsigned)(s[i++] - '0'), frac++, ndig++;
		}
		if (ndig && i == s.size()) {
			static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
			return (float)((double)m / p10[frac]);
		}
	}
	if (s.empty() || s.size() > 40)
		return -1;
	char buf[48];
	memcpy(buf, s.data(), s.size());
	buf[s.size()] = '\0';
	char *end;
	double d = strtod(buf, &end);
	return *end == '\0' ? (float)d : -1;
}

// "[557496, 1, 1]" -> three ints; missing ones stay 0.
static void to_dim3(std::string_view s, int32_t out[3])
{
	out[0] = out[1] = out[2] = 0;
	size_t i = 0;
	for (int k = 0; k < 3; k++) {
		while (i < s.size() && (s[i] < '0' || s[i] > '9') && s[i] != '-')
			i++;
		size_t j = i;
		while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == '-'))
			j++;
		if (j == i)
			return;
		out[k] = to_i32(s.substr(i, j - i), 0);
		i = j;
	}
}

// A key as written between its quotes (still escaped).  simdjson has
// validated the document, so the first unescaped quote ends it.  Keys that
// Kineto writes carry no escapes; an escaped one simply matches no known key
// and is copied into the args text as it was written.
static std::string_view raw_key(ondemand::field &field)
{
	const char *k = field.key().raw();
	const char *q = k;
	for (;;) {
		q = (const char *)memchr(q, '"', 1 << 20);
		if (!q)
			return std::string_view(k, 0);
		size_t bs = 0;
		while (q - bs > k && q[-1 - (ptrdiff_t)bs] == '\\')
			bs++;
		if (bs % 2 == 0)
			return std::string_view(k, (size_t)(q - k));
		q++;
	}
}

// Is the key starting at k (just after its opening quote) exactly lit?
// The bytes read stay inside the document: a key is followed by '"', ':'
// and a value.
template <size_t N> static inline bool key_is(const char *k, const char (&lit)[N])
{
	return memcmp(k, lit, N - 1) == 0 && k[N - 1] == '"';
}

static void append_json_string(text_buf &out, std::string_view s)
{
	// index/text.c's writer, the one rule for JSON text (strict UTF-8,
	// controls escaped): measured, then written in place.
	size_t need = tix_json_buf(nullptr, 0, s.data(), s.size());
	if (out.fit(need + 1)) {
		tix_json_buf(out.p + out.len, need + 1, s.data(), s.size());
		out.len += need;
	}
}

// The args keys tix reads, found by length first: a kernel's args have a
// dozen keys and a chain of string compares per key showed in profiles.
enum arg_key {
	ARG_OTHER, ARG_DROPPED, ARG_CORRELATION, ARG_GRID, ARG_BLOCK, ARG_REGISTERS, ARG_SHARED,
	ARG_BLOCKS_PER_SM, ARG_WARPS_PER_SM, ARG_OCCUPANCY, ARG_DEVICE, ARG_CONTEXT, ARG_STREAM,
	ARG_BYTES, ARG_GRAPH_ID, ARG_GRAPH_NODE_ID, ARG_DIMS, ARG_TYPES, ARG_STRIDES, ARG_CONCRETE,
	ARG_SORT_INDEX,
};

static enum arg_key arg_key_of(std::string_view k)
{
	// Per-instance ids (ARG_DROPPED): the index replaces them with links,
	// and dropping them lets identical launches share one args record.
	switch (k.size()) {
	case 4:
		return k == "grid" ? ARG_GRID : ARG_OTHER;
	case 5:
		return k == "block" ? ARG_BLOCK : k == "bytes" ? ARG_BYTES : ARG_OTHER;
	case 6:
		return k == "device" ? ARG_DEVICE : k == "stream" ? ARG_STREAM
		       : k == "Ev Idx" ? ARG_DROPPED : k == "queued" ? ARG_DROPPED : ARG_OTHER;
	case 7:
		return k == "context" ? ARG_CONTEXT : ARG_OTHER;
	case 8:
		return k == "graph id" ? ARG_GRAPH_ID : ARG_OTHER;
	case 9:
		return k == "Python id" ? ARG_DROPPED : ARG_OTHER;
	case 10:
		return k == "Input Dims" ? ARG_DIMS : k == "Input type" ? ARG_TYPES
		       : k == "sort_index" ? ARG_SORT_INDEX : ARG_OTHER;
	case 11:
		return k == "correlation" ? ARG_CORRELATION : k == "External id" ? ARG_DROPPED : ARG_OTHER;
	case 12:
		return k == "warps per SM" ? ARG_WARPS_PER_SM : ARG_OTHER;
	case 13:
		return k == "shared memory" ? ARG_SHARED : k == "blocks per SM" ? ARG_BLOCKS_PER_SM
		       : k == "Input Strides" ? ARG_STRIDES : k == "graph node id" ? ARG_GRAPH_NODE_ID
		       : ARG_OTHER;
	case 15:
		return k == "Concrete Inputs" ? ARG_CONCRETE : k == "Sequence number" ? ARG_DROPPED
		       : ARG_OTHER;
	case 16:
		return k == "Python parent id" ? ARG_DROPPED : ARG_OTHER;
	case 18:
		return k == "Record function id" ? ARG_DROPPED : ARG_OTHER;
	case 20:
		return k == "registers per thread" ? ARG_REGISTERS : k == "Profiler Event Index" ? ARG_DROPPED
		       : ARG_OTHER;
	case 25:
		return k == "est. achieved occupancy %" ? ARG_OCCUPANCY : ARG_OTHER;
	default:
		return ARG_OTHER;
	}
}

static const char *here(ondemand::document &doc)
{
	const char *where = nullptr;
	if (doc.current_location().get(where) != SUCCESS)
		return nullptr;
	return where;
}

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Where the text of the value at v ends, given the next structural
// character after it at e: as simdjson's raw_json() (an array or object:
// the whitespace after it is kept) and trim_ws(raw_json_token()) (a scalar:
// it is not) had it, so that the index stays as it was.
static const char *value_end(const char *v, const char *e)
{
	if (*v == '[' || *v == '{')
		return e;
	while (e > v && is_ws(e[-1]))
		e--;
	return e;
}

// One args value, as text, into ev (the fields tix computes with) and the
// rebuilt args text (every value kept, in order).
static void take_arg(shim_parser *p, shim_event &ev, bool &first, std::string_view key,
                     std::string_view raw)
{
	text_buf &out = p->args;
	switch (arg_key_of(key)) {
	case ARG_CORRELATION: {
		int64_t c;
		if (to_i64(raw, c))
			ev.correlation = c;
		return; /* per instance: the index keeps the link instead */
	}
	case ARG_GRID:
		to_dim3(raw, ev.grid);
		ev.has_launch = 1;
		break;
	case ARG_BLOCK:
		to_dim3(raw, ev.block);
		ev.has_launch = 1;
		break;
	case ARG_REGISTERS: ev.registers = to_i32(raw, -1); break;
	case ARG_SHARED: ev.shared_mem = to_i32(raw, -1); break;
	case ARG_BLOCKS_PER_SM: ev.blocks_per_sm = to_float(raw); break;
	case ARG_WARPS_PER_SM: ev.warps_per_sm = to_float(raw); break;
	case ARG_OCCUPANCY: ev.occupancy = to_float(raw); break;
	case ARG_DEVICE: ev.device = to_i32(raw, -1); break;
	case ARG_CONTEXT: ev.context = to_i32(raw, -1); break;
	case ARG_STREAM: ev.stream = to_i32(raw, -1); break;
	case ARG_BYTES: {
		int64_t by;
		if (to_i64(raw, by))
			ev.bytes = by;
		ev.has_launch = 1;
		break;
	}
	case ARG_GRAPH_ID: ev.graph_id = (uint32_t)to_i32(raw, 0); break;
	case ARG_GRAPH_NODE_ID: ev.graph_node_id = (uint32_t)to_i32(raw, 0); break;
	case ARG_DIMS: ev.dims = view(raw); break;
	case ARG_TYPES: ev.types = view(raw); break;
	case ARG_STRIDES: ev.strides = view(raw); break;
	case ARG_CONCRETE: ev.concrete = view(raw); break;
	case ARG_SORT_INDEX: ev.meta_sort = view(raw); break;
	case ARG_DROPPED:
		return; /* a per-instance id: the index keeps links instead */
	case ARG_OTHER:
		break;
	}
	if (!first)
		out.put(", ", 2);
	first = false;
	out.put('"');
	out.put(key.data(), key.size()); // already JSON-escaped
	out.put("\": ", 3);
	out.put(raw.data(), raw.size());
}

// The args walk.  tix keeps every value's text and computes with a few of
// them, all from the text (to_dim3, to_i32, ...), so a value is never asked
// of simdjson: its text runs from after its key's ':' to the ',' before the
// next key, whose position the walk over the fields gives anyway (simdjson
// skips an unread value on its structural index), and the last one to the
// '}' before the location after the object.  Asking simdjson for each
// value (type(), then raw_json() or raw_json_token()) cost ~0.2 s a thread
// on the 485 MB trace.  Only "name" (M events) is read as a typed string,
// to unescape it.  Like type(), a value's first byte is checked: one that
// starts no JSON value goes to simdjson, which fails as before.
static error_code read_args(shim_parser *p, ondemand::document &doc, ondemand::object &args,
                            shim_event &ev)
{
	text_buf &out = p->args;
	out.len = 0;
	out.put('{');
	bool first = true;
	std::string_view pkey;       // the field whose value's end is not known yet
	const char *pval = nullptr;  // its value's first byte
	for (auto f : args) { /* the field where it was built, as in read_event */
		error_code err = f.error();
		if (err)
			return err;
		ondemand::field &field = f.value_unsafe();
		const char *k = field.key().raw();
		if (pval) { /* the previous value ends before the ',' before this key */
			const char *e = k - 1;
			while (e > pval && is_ws(e[-1]))
				e--;
			if (e > pval && e[-1] == ',')
				e--;
			e = value_end(pval, e);
			take_arg(p, ev, first, pkey, std::string_view(pval, (size_t)(e - pval)));
			pval = nullptr;
		}
		std::string_view key = raw_key(field);
		const char *v0 = key.data() + key.size() + 1;
		while (is_ws(*v0))
			v0++;
		if (*v0 == ':')
			v0++;
		while (is_ws(*v0))
			v0++;
		ondemand::value &v = field.value();
		char c = *v0;
		bool starts_value = c == '"' || c == '-' || (c >= '0' && c <= '9') || c == '[' || c == '{' ||
		                    c == 't' || c == 'f' || c == 'n';
		if (!starts_value || (c == '"' && key == "name")) {
			ondemand::json_type t;
			if ((err = v.type().get(t)))
				return err;
			if (t == ondemand::json_type::string) { // M events: process/thread name, unescaped
				std::string_view s;
				if ((err = v.get_string().get(s)))
					return err;
				p->meta.assign(s.data(), s.size());
				ev.meta_name = shim_str{p->meta.data(), p->meta.size()};
				if (!first)
					out.put(", ", 2);
				first = false;
				out.put("\"name\": ", 8);
				append_json_string(out, s);
				continue;
			}
		}
		pkey = key;
		pval = v0;
	}
	if (pval) { /* the last value ends before the object's '}' */
		const char *e = here(doc);
		if (!e)
			return TAPE_ERROR;
		while (e > pval && is_ws(e[-1]))
			e--;
		if (e > pval && e[-1] == '}')
			e--;
		e = value_end(pval, e);
		take_arg(p, ev, first, pkey, std::string_view(pval, (size_t)(e - pval)));
	}
	out.put('}');
	ev.args = first ? shim_str{nullptr, 0} : shim_str{out.p, out.len};
	return SUCCESS;
}

static shim_event blank_event(void)
{
	shim_event ev;
	/* cppcheck-suppress memsetClassFloat ; its floats are set below, and zero bits are 0.0f in IEEE 754 */
	memset(&ev, 0, sizeof(ev));
	ev.correlation = -1;
	ev.registers = ev.shared_mem = -1;
	ev.blocks_per_sm = ev.warps_per_sm = ev.occupancy = -1;
	ev.device = ev.context = ev.stream = -1;
	ev.bytes = -1;
	return ev;
}

// Every event starts as a copy of one blank event, in fixed 32-byte chunks
// that compile to vector loads and stores: gcc 12 cleared it with `rep
// stosq` (a memset of 400 bytes), whose start-up cost was ~3% of tix
// index's CPU (issue 23); clang used vector stores.
static void reset(shim_event &ev)
{
	static const shim_event blank = blank_event();
	static_assert(sizeof(shim_event) % 8 == 0, "copied in 8-byte words");
	const unsigned char *from = (const unsigned char *)&blank;
	unsigned char *to = (unsigned char *)&ev;
	size_t i = 0;
	for (; i + 32 <= sizeof ev; i += 32)
		memcpy(to + i, from + i, 32);
	for (; i < sizeof ev; i += 8)
		memcpy(to + i, from + i, 8);
}

static error_code read_id(ondemand::value &v, shim_id &id)
{
	ondemand::json_type t;
	auto err = v.type().get(t);
	if (err)
		return err;
	id.present = 1;
	if (t == ondemand::json_type::string) {
		std::string_view s;
		if ((err = v.get_string().get(s)))
			return err;
		id.str = view(s);
		if (!s.size())
			id.str.ptr = ""; // "" is a name, not an absence
		return SUCCESS;
	}
	if (t == ondemand::json_type::number) {
		int64_t n;
		if (v.get_int64().get(n) == SUCCESS) {
			id.num = n;
			return SUCCESS;
		}
		// beyond int64 or fractional: keep the text as a name
		id.str = view(trim_ws(v.raw_json_token()));
		return SUCCESS;
	}
	std::string_view raw;
	if ((err = raw_of(v, raw)))
		return err;
	id.str = view(raw);
	return SUCCESS;
}

// A number's text, or a string's content ("ts": "12.5" happens).
static error_code read_number_text(ondemand::value &v, shim_str &out)
{
	ondemand::json_type t;
	auto err = v.type().get(t);
	if (err)
		return err;
	if (t == ondemand::json_type::string) {
		std::string_view s;
		if ((err = v.get_string().get(s)))
			return err;
		out = view(s);
		return SUCCESS;
	}
	if (t != ondemand::json_type::number)
		return SUCCESS; // "ts": true and friends: absent
	out = view(trim_ws(v.raw_json_token()));
	return SUCCESS;
}

// A string field; a value of another type leaves it absent (the event is
// then judged on what it has), it does not fail the trace.
static error_code read_string(ondemand::value &v, shim_str &out)
{
	ondemand::json_type t;
	auto err = v.type().get(t);
	if (err)
		return err;
	if (t != ondemand::json_type::string)
		return SUCCESS;
	std::string_view s;
	if ((err = v.get_string().get(s)))
		return err;
	out = view(s);
	if (!out.ptr)
		out.ptr = "";
	return SUCCESS;
}

// The field loop works on the field where the object iterator built it (a
// reference into f), never on a copy: `ondemand::field field;
// std::move(f).get(field)` and `ondemand::value v = field.value()` made gcc 12
// copy the value iterator with narrow stores and a 16-byte reload, a
// store-to-load forward that fails (~10% of tix index's CPU, issue 23).
static error_code read_event(shim_parser *p, ondemand::document &doc, ondemand::object &obj, shim_event &ev)
{
	for (auto f : obj) {
		error_code err = f.error();
		if (err)
			return err;
		ondemand::field &field = f.value_unsafe();
		const char *k = field.key().raw();
		ondemand::value &v = field.value();
		if (key_is(k, "ph")) {
			err = read_string(v, ev.ph);
		} else if (key_is(k, "cat")) {
			err = read_string(v, ev.cat);
		} else if (key_is(k, "name")) {
			ondemand::json_type t;
			if ((err = v.type().get(t)))
				return err;
			if (t == ondemand::json_type::string) {
				err = read_string(v, ev.name);
			} else if (t == ondemand::json_type::null) {
				ev.name = shim_str{"", 0};
			} else {
				std::string_view raw;
				err = raw_of(v, raw);
				ev.name = view(raw);
			}
		} else if (key_is(k, "pid")) {
			err = read_id(v, ev.pid);
		} else if (key_is(k, "tid")) {
			err = read_id(v, ev.tid);
		} else if (key_is(k, "ts")) {
			err = read_number_text(v, ev.ts);
		} else if (key_is(k, "dur")) {
			err = read_number_text(v, ev.dur);
		} else if (key_is(k, "id")) {
			ondemand::json_type t;
			if ((err = v.type().get(t)))
				return err;
			uint64_t u;
			if (t == ondemand::json_type::number && v.get_uint64().get(u) == SUCCESS) {
				ev.id = u;
			} else {
				std::string_view raw;
				if ((err = raw_of(v, raw)))
					return err;
				ev.id = std::hash<std::string_view>{}(raw);
			}
			ev.has_id = 1;
		} else if (key_is(k, "bp")) {
			err = read_string(v, ev.bp);
		} else if (key_is(k, "s")) {
			err = read_string(v, ev.scope);
		} else if (key_is(k, "args")) {
			ondemand::json_type t;
			if ((err = v.type().get(t)))
				return err;
			if (t == ondemand::json_type::object) {
				ondemand::object args;
				if ((err = v.get_object().get(args)))
					return err;
				err = read_args(p, doc, args, ev);
			}
		}
		if (err)
			return err;
	}
	return SUCCESS;
}

static_assert((int)SHIM_DEPTH_ERROR == (int)DEPTH_ERROR, "json_shim.h's SHIM_DEPTH_ERROR is simdjson's");

static int fail(shim_parser *p, error_code e, const char *where, shim_fail *f)
{
	f->code = (int)e;
	f->msg = error_message(e);
	f->at = where && where >= p->base ? (size_t)(where - p->base) : 0;
	return -1;
}

extern "C" int SHIM(shim_parse_events)(struct shim_parser *p, const char *buf, size_t len,
                                 shim_event_fn fn, void *ctx, shim_fail *f)
{
	p->base = buf;
	ondemand::document doc;
	auto err = p->parser.iterate(padded_string_view(buf, len, len + SIMDJSON_PADDING)).get(doc);
	if (err)
		return fail(p, err, buf, f);
	ondemand::array arr;
	if ((err = doc.get_array().get(arr)))
		return fail(p, err, buf, f);
	shim_event ev;
	for (auto item : arr) {
		ondemand::object obj;
		const char *where = nullptr;
		where = here(doc);
		if ((err = item.get_object().get(obj)))
			return fail(p, err, where, f);
		reset(ev);
		ev.start = where;
		if ((err = read_event(p, doc, obj, ev))) {
			where = here(doc);
			return fail(p, err, where, f);
		}
		int rc = fn(ctx, &ev);
		if (rc)
			return rc;
	}
	// The array must be the whole buffer: a location still in bounds means
	// the array closed early (a guessed window end past the events).
	const char *rest = here(doc);
	if (rest)
		return fail(p, TAPE_ERROR, rest, f);
	return 0;
}

extern "C" int SHIM(shim_parse_one)(struct shim_parser *p, const char *buf, size_t len,
                              shim_event_fn fn, void *ctx, shim_fail *f)
{
	p->base = buf;
	ondemand::document doc;
	auto err = p->parser.iterate(padded_string_view(buf, len, len + SIMDJSON_PADDING)).get(doc);
	if (err)
		return fail(p, err, buf, f);
	ondemand::object obj;
	if ((err = doc.get_object().get(obj)))
		return fail(p, err, buf, f);
	shim_event ev;
	reset(ev);
	ev.start = buf;
	if ((err = read_event(p, doc, obj, ev))) {
		const char *where = nullptr;
		where = here(doc);
		return fail(p, err, where, f);
	}
	return fn(ctx, &ev);
}

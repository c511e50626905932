// Baseline for the benchmark: a bare simdjson On-Demand walk of a Kineto
// trace.  The file is mapped once (with zero pages after it, so simdjson's
// padding is there without a copy), then walked three times in this process;
// the best pass counts, when simdjson's buffers (structural index, string
// buffer) are already allocated and faulted in.  Each pass iterates
// traceEvents and, for every event, reads ph, name, ts, dur, pid and tid;
// args and every other field are skipped.  That is the least a reader of
// these traces can do, so tix index is compared against it.
//
// With --args --threads 2: the floor of what tix's parse does, on both
// cores: the events are cut in two at an event boundary near the middle
// (the two bytes around each half patched to '[' ']' in a private mapping,
// as tix does), each half walked by its own thread and parser, and every
// args value's text taken from the positions of the keys (from after its
// key's ':' to the ',' before the next key; the last to the '}' before the
// location after the object), none asked of simdjson.
//
// With --args alone: the same on one thread, the whole traceEvents array.
//
// With --window BYTES: the array cut into windows of about BYTES at event
// boundaries, as tix's parse cuts it, each walked in turn by the thread's
// one parser (with --threads 2, each thread the windows of its half): the
// floor of a parse in bounded memory (see walk_windowed).
//
//   tix_bench_walk TRACE.json [PASSES] [--args] [--threads 2] [--window BYTES]
// prints one JSON line: {"file":..., "bytes":..., "events":..., "seconds":
// best, "implementation": the simdjson kernel, "compiler":..., "threads",
// "args", ["window", "windows",] "passes":[...], "checksum":...}.  Plain
// JSON only (no .gz).  With PASSES 1 the process is what tix index is: one
// fresh pass, its buffers allocated and faulted in as it goes (bench/run.sh
// times it from outside).
#include <simdjson.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>
#include <functional>
#include <thread>
#include <vector>

using namespace simdjson;

// What the walk was built as: the On-Demand kernel (fixed at compile time
// by -march, parse/shim_flags.cmake) and the compiler, since both decide
// the floor; "(checks on)" when simdjson's development checks or its
// asserts are on (no optimisation, no NDEBUG), a build the floor must not
// be measured with.
#ifdef __clang__
#define COMPILER "clang " __clang_version__
#else
#define COMPILER "gcc " __VERSION__
#endif
static const char *kernel_built(void)
{
#if defined(SIMDJSON_DEVELOPMENT_CHECKS) || !defined(NDEBUG)
	return SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION) " (checks on)";
#else
	return SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION);
#endif
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// Maps SIZE bytes of FD followed by at least one zero page, as tix index does.
static char *map_padded(int fd, size_t size, size_t *maplen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = ((size + page - 1) / page + 1) * page;
	if (len - size < SIMDJSON_PADDING)
		len += page;
	void *area = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return nullptr;
	if (size && mmap(area, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(area, len);
		return nullptr;
	}
	madvise(area, size, MADV_SEQUENTIAL); // as tix maps it (parse/parse.c): fewer faults
	*maplen = len;
	return (char *)area;
}

// pid/tid are ints in most traces, strings in some ("Spans", "stream 7").
static error_code read_id(ondemand::value &v, uint64_t &sum)
{
	ondemand::json_type t;
	auto err = v.type().get(t);
	if (err)
		return err;
	if (t == ondemand::json_type::string) {
		std::string_view s;
		if ((err = v.get_string().get(s)))
			return err;
		sum += s.size();
		return SUCCESS;
	}
	int64_t n;
	if ((err = v.get_int64().get(n)))
		return err;
	sum += (uint64_t)n;
	return SUCCESS;
}

struct walk_result {
	uint64_t events = 0;
	uint64_t checksum = 0;
};

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The args object: each value's text from the key positions (see the top).
static error_code walk_args(ondemand::document &doc, ondemand::object &args, uint64_t &sum)
{
	const char *pval = nullptr;
	for (auto f : args) {
		ondemand::field field;
		auto err = std::move(f).get(field);
		if (err)
			return err;
		const char *k = field.key().raw();
		if (pval) {
			const char *e = k - 1;
			while (e > pval && is_ws(e[-1]))
				e--;
			sum += (uint64_t)(e - pval) + (unsigned char)*pval;
		}
		const char *q = (const char *)memchr(k, '"', 1 << 20);
		if (!q)
			return TAPE_ERROR;
		q++;
		while (is_ws(*q) || *q == ':')
			q++;
		pval = q;
	}
	if (pval) {
		const char *e = nullptr;
		if (doc.current_location().get(e) != SUCCESS)
			return TAPE_ERROR;
		sum += (uint64_t)(e - pval) + (unsigned char)*pval;
	}
	return SUCCESS;
}

// The events of one array: ph, name, ts, dur, pid, tid and (with_args)
// every args value's text.
static error_code walk_events(ondemand::document &doc, ondemand::array &events, bool with_args,
                              walk_result &r)
{
	error_code err;
	uint64_t n = 0, sum = 0;
	for (auto item : events) {
		ondemand::object obj;
		if ((err = item.get_object().get(obj)))
			return err;
		for (auto field : obj) {
			ondemand::raw_json_string key;
			if ((err = field.key().get(key)))
				return err;
			ondemand::value v = field.value();
			if (key == "ph" || key == "name") {
				std::string_view s;
				if ((err = v.get_string().get(s)))
					return err;
				sum += s.size() + (s.empty() ? 0 : (unsigned char)s[0]);
			} else if (key == "ts" || key == "dur") {
				double d;
				if ((err = v.get_double().get(d)))
					return err;
				sum += (uint64_t)d;
			} else if (key == "pid" || key == "tid") {
				if ((err = read_id(v, sum)))
					return err;
			} else if (with_args && key == "args") {
				ondemand::object args;
				if ((err = v.get_object().get(args)))
					return err;
				if ((err = walk_args(doc, args, sum)))
					return err;
			}
		}
		n++;
	}
	r.events = n;
	r.checksum = sum;
	return SUCCESS;
}

// buf[0, len): a whole trace (its traceEvents array found in the top
// object) or, for one half, a JSON array of events.
static error_code walk(ondemand::parser &parser, const char *buf, size_t len, bool whole,
                       bool with_args, walk_result &r)
{
	ondemand::document doc;
	auto err = parser.iterate(padded_string_view(buf, len, len + SIMDJSON_PADDING)).get(doc);
	if (err)
		return err;
	ondemand::array events;
	if (whole) {
		ondemand::object top;
		if ((err = doc.get_object().get(top)))
			return err;
		err = top.find_field_unordered("traceEvents").get_array().get(events);
	} else {
		err = doc.get_array().get(events);
	}
	if (err)
		return err;
	return walk_events(doc, events, with_args, r);
}

// The halves of the traceEvents array of buf[0, size): [a0, a1) and
// [b0, b1), each a JSON array once its two patch bytes are written.
struct halves {
	size_t a0, a1, b0, b1;
};

// The first event boundary at or after `from`: a "}," followed by blanks
// and a '{' with a blank before it (the blank and the ',' are the bytes a
// cut patches), or null.
static const char *next_cut(const char *buf, size_t from, size_t end)
{
	const char *c = from < end ? (const char *)memmem(buf + from, end - from, "},", 2) : nullptr;
	while (c) {
		const char *d = c + 2;
		while (is_ws(*d))
			d++;
		if (*d == '{' && is_ws(d[-1]))
			return c;
		c = (const char *)memmem(c + 2, (size_t)(buf + end - (c + 2)), "},", 2);
	}
	return nullptr;
}

// The events after a cut at c: the position of the blank before its '{'.
static size_t after_cut(const char *buf, const char *c)
{
	const char *d = c + 2;
	while (is_ws(*d))
		d++;
	return (size_t)(d - buf) - 1;
}

// The traceEvents array of buf[0, size): [*a0, *b1) from its '[' to its ']'.
static bool find_events(const char *buf, size_t size, size_t &a0, size_t &b1)
{
	const char *te = (const char *)memmem(buf, size, "\"traceEvents\"", 13);
	if (!te)
		return false;
	const char *open = (const char *)memchr(te, '[', (size_t)(buf + size - te));
	if (!open)
		return false;
	a0 = (size_t)(open - buf);
	// the array's end: the last ']' followed (after blanks) by ',' or '}'
	// at the top level; Kineto writes traceEvents first, then short keys
	const char *endp = (const char *)memrchr(buf, ']', size);
	while (endp && endp > open) { // the first ']' from the end that closes the events
		const char *q = endp + 1;
		while (q < buf + size && is_ws(*q))
			q++;
		if (q < buf + size && (*q == ',' || *q == '}') && (endp[-1] == '}' || is_ws(endp[-1])))
			break;
		endp = (const char *)memrchr(buf, ']', (size_t)(endp - buf));
	}
	if (!endp || endp <= open)
		return false;
	b1 = (size_t)(endp - buf) + 1;
	return true;
}

static bool find_halves(const char *buf, size_t size, halves &h)
{
	if (!find_events(buf, size, h.a0, h.b1))
		return false;
	const char *c = next_cut(buf, h.a0 + (h.b1 - h.a0) / 2, h.b1);
	if (!c)
		return false;
	h.a1 = (size_t)(c - buf) + 2; // the ',' becomes ']'
	h.b0 = after_cut(buf, c);     // the blank before the '{' becomes '['
	return true;
}

// PASSES timed runs of one or two jobs (job_b empty: one thread), each
// job writing its own error_code; times[] and best filled.  0, or 2 with
// the message printed.
template <class JobA, class JobB>
static int time_passes(const char *path, int passes, JobA job_a, JobB job_b, double *times, double &best)
{
	best = 1e30;
	for (int i = 0; i < passes; i++) {
		double t0 = now();
		error_code eb = SUCCESS;
		std::thread tb;
		if (job_b)
			tb = std::thread([&] { eb = job_b(); });
		error_code ea = job_a();
		if (tb.joinable())
			tb.join();
		double t = now() - t0;
		if (ea || eb) {
			fprintf(stderr, "%s: simdjson: %s\n", path, error_message(ea ? ea : eb));
			return 2;
		}
		times[i] = t;
		if (t < best)
			best = t;
	}
	return 0;
}

// The one JSON line (see the top); `extra` is more fields, each followed
// by ", ".
static void print_result(const char *path, size_t size, const walk_result &r, double best, int threads,
                         bool with_args, const char *extra, const double *times, int passes)
{
	printf("{\"file\": \"%s\", \"bytes\": %zu, \"events\": %llu, \"seconds\": %.4f, "
	       "\"implementation\": \"%s\", \"compiler\": \"%s\", \"threads\": %d, \"args\": %s, "
	       "%s\"passes\": [",
	       path, size, (unsigned long long)r.events, best, kernel_built(), COMPILER, threads,
	       with_args ? "true" : "false", extra);
	for (int i = 0; i < passes; i++)
		printf("%s%.4f", i ? ", " : "", times[i]);
	printf("], \"checksum\": %llu}\n", (unsigned long long)r.checksum);
}

static walk_result sum_of(const walk_result &a, const walk_result &b)
{
	walk_result r;
	r.events = a.events + b.events;
	r.checksum = a.checksum + b.checksum;
	return r;
}

// With --window BYTES: the traceEvents array [a0, b1) cut at event
// boundaries into windows of about BYTES each, as tix's parse cuts it
// (parse/windows.c), each a JSON array once its patch bytes are written.
// One parser per thread walks its windows in turn, so its buffers are
// sized for a window and reused: the floor of a parse whose memory does
// not grow with the trace, where the whole-array walk grows simdjson's
// structural index to the trace (~0.9 byte per byte of JSON).
struct span {
	size_t at, len;
};

static std::vector<span> cut_windows(char *buf, size_t a0, size_t b1, size_t window)
{
	std::vector<span> out;
	size_t s = a0;
	for (;;) {
		const char *c = b1 - s > window ? next_cut(buf, s + window, b1) : nullptr;
		if (!c) {
			out.push_back(span{s, b1 - s});
			return out;
		}
		size_t end = (size_t)(c - buf) + 2; // the ',' becomes ']'
		out.push_back(span{s, end - s});
		buf[end - 1] = ']';
		s = after_cut(buf, c); // the blank before the '{' becomes '['
		buf[s] = '[';
	}
}

static error_code walk_windows(ondemand::parser &parser, const char *buf, const span *w, size_t n,
                               bool with_args, walk_result &r)
{
	walk_result all;
	for (size_t i = 0; i < n; i++) {
		walk_result one;
		error_code err = walk(parser, buf + w[i].at, w[i].len, false, with_args, one);
		if (err)
			return err;
		all = sum_of(all, one);
	}
	r = all;
	return SUCCESS;
}

static int walk_windowed(const char *path, char *buf, size_t size, int passes, bool with_args,
                         int threads, size_t window)
{
	size_t a0, b1;
	if (!find_events(buf, size, a0, b1)) {
		fprintf(stderr, "%s: no traceEvents array to cut into windows\n", path);
		return 2;
	}
	std::vector<span> w = cut_windows(buf, a0, b1, window);
	size_t split = w.size(); // thread A's windows: [0, split); B's the rest
	if (threads == 2) {
		size_t mid = a0 + (b1 - a0) / 2;
		split = 0;
		while (split < w.size() && w[split].at < mid)
			split++;
	}
	ondemand::parser pa, pb; // reused: warm after the first window
	double best, times[16];
	walk_result ra, rb;
	std::function<error_code()> job_b;
	if (split < w.size())
		job_b = [&] { return walk_windows(pb, buf, w.data() + split, w.size() - split, with_args, rb); };
	if (time_passes(path, passes, [&] { return walk_windows(pa, buf, w.data(), split, with_args, ra); },
	                job_b, times, best))
		return 2;
	char extra[64];
	snprintf(extra, sizeof extra, "\"window\": %zu, \"windows\": %zu, ", window, w.size());
	print_result(path, size, sum_of(ra, rb), best, threads, with_args, extra, times, passes);
	return 0;
}

static int walk_two(const char *path, char *buf, size_t size, int passes, bool with_args)
{
	halves h;
	if (!find_halves(buf, size, h)) {
		fprintf(stderr, "%s: no traceEvents array to cut in two\n", path);
		return 2;
	}
	buf[h.a1 - 1] = ']';
	buf[h.b0] = '[';
	ondemand::parser pa, pb; // reused: warm after pass 1
	double best, times[16];
	walk_result ra, rb;
	std::function<error_code()> job_b = [&] { return walk(pb, buf + h.b0, h.b1 - h.b0, false, with_args, rb); };
	if (time_passes(path, passes, [&] { return walk(pa, buf + h.a0, h.a1 - h.a0, false, with_args, ra); },
	                job_b, times, best))
		return 2;
	print_result(path, size, sum_of(ra, rb), best, 2, with_args, "", times, passes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE.json [PASSES] [--args] [--threads 2] [--window BYTES]\n", argv[0]);
		return 1;
	}
	const char *path = argv[1];
	int passes = 3, threads = 1;
	size_t window = 0;
	bool with_args = false;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--args") == 0)
			with_args = true;
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc)
			window = (size_t)strtoull(argv[++i], nullptr, 10);
		else
			passes = atoi(argv[i]);
	}
	if (passes < 1)
		passes = 1;
	if (passes > 16)
		passes = 16;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 2;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 2;
	}
	size_t size = (size_t)st.st_size, maplen = 0;
	char *buf = map_padded(fd, size, &maplen);
	if (!buf) {
		fprintf(stderr, "%s: cannot map: %s\n", path, strerror(errno));
		return 2;
	}
	close(fd);
	if (window) {
		int rc = walk_windowed(path, buf, size, passes, with_args, threads, window);
		munmap(buf, maplen);
		return rc;
	}
	if (threads == 2) {
		int rc = walk_two(path, buf, size, passes, with_args);
		munmap(buf, maplen);
		return rc;
	}

	ondemand::parser parser; // reused: its buffers are warm after pass 1
	double best, times[16];
	walk_result r;
	int rc = time_passes(path, passes, [&] { return walk(parser, buf, size, true, with_args, r); },
	                     std::function<error_code()>(), times, best);
	if (rc == 0)
		print_result(path, size, r, best, 1, with_args, "", times, passes);
	munmap(buf, maplen);
	return rc;
}

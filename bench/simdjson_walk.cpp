// Baseline for the benchmark: a bare simdjson On-Demand walk of a Kineto
// trace.  The file is mapped once (with zero pages after it, so simdjson's
// padding is there without a copy), then walked three times in this process;
// the best pass counts, when simdjson's buffers (structural index, string
// buffer) are already allocated and faulted in.  Each pass iterates
// traceEvents and, for every event, reads ph, name, ts, dur, pid and tid;
// args and every other field are skipped.  That is the least a reader of
// these traces can do, so tix index is compared against it.
//
//   tix_bench_walk TRACE.json [PASSES]
// prints one JSON line: {"file":..., "bytes":..., "events":..., "seconds":
// best, "passes":[...], "checksum":...}.  Plain JSON only (no .gz).
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

using namespace simdjson;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// Maps SIZE bytes of FD followed by at least one zero page.
static char *map_padded(int fd, size_t size, size_t *maplen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = ((size + page - 1) / page + 1) * page;
	if (len - size < SIMDJSON_PADDING)
		len += page;
	void *area = mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return nullptr;
	if (size && mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(area, len);
		return nullptr;
	}
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

static error_code walk(ondemand::parser &parser, const char *buf, size_t len, walk_result &r)
{
	ondemand::document doc;
	auto err = parser.iterate(padded_string_view(buf, len, len + SIMDJSON_PADDING)).get(doc);
	if (err)
		return err;
	ondemand::object top;
	if ((err = doc.get_object().get(top)))
		return err;
	ondemand::array events;
	if ((err = top.find_field_unordered("traceEvents").get_array().get(events)))
		return err;
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
			}
			// anything else (args, cat, id, ...) is skipped by the iterator
		}
		n++;
	}
	r.events = n;
	r.checksum = sum;
	return SUCCESS;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE.json [PASSES]\n", argv[0]);
		return 1;
	}
	const char *path = argv[1];
	int passes = argc > 2 ? atoi(argv[2]) : 3;
	if (passes < 1)
		passes = 1;
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

	ondemand::parser parser; // reused: its buffers are warm after pass 1
	double best = 1e30, times[16];
	walk_result r;
	if (passes > 16)
		passes = 16;
	for (int i = 0; i < passes; i++) {
		double t0 = now();
		auto err = walk(parser, buf, size, r);
		double t = now() - t0;
		if (err) {
			fprintf(stderr, "%s: simdjson: %s\n", path, error_message(err));
			return 2;
		}
		times[i] = t;
		if (t < best)
			best = t;
	}
	printf("{\"file\": \"%s\", \"bytes\": %zu, \"events\": %llu, \"seconds\": %.4f, "
	       "\"implementation\": \"%s\", \"passes\": [",
	       path, size, (unsigned long long)r.events, best,
	       SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION));
	for (int i = 0; i < passes; i++)
		printf("%s%.4f", i ? ", " : "", times[i]);
	printf("], \"checksum\": %llu}\n", (unsigned long long)r.checksum);
	munmap(buf, maplen);
	return 0;
}

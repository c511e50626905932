/* Runs a command and reports its peak anonymous memory.
 *
 *   tix_bench_peak [-i MICROSECONDS] -- CMD [ARGS...]
 *
 * Polls /proc/PID/status (RssAnon, and VmRSS for comparison) every
 * MICROSECONDS (default 1000) until the child exits, and prints one JSON
 * line on stderr:
 *   {"rc": 0, "wall_s": 0.52, "peak_anon_kb": 61234, "peak_rss_kb": ...,
 *    "maxrss_kb": ..., "samples": 480, "user_s": 0.61, "sys_s": 0.09,
 *    "minflt": 38000}
 * maxrss_kb is the kernel's VmHWM (getrusage): it counts the pages of the
 * mapped input too, which is why the sampler exists.  user_s, sys_s and
 * minflt are the child's (getrusage of it, its threads included).  -i 0
 * samples nothing (the peak fields are 0) and waits for the child without
 * polling: the wall and CPU of a command, nothing taken from it.  The child's own
 * stdout/stderr pass through.  Exit status: the child's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reads RssAnon and VmRSS (kB); returns 0 when the process has no mm. */
static int sample(const char *path, long *anon, long *rss)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *a = strstr(buf, "RssAnon:");
	char *r = strstr(buf, "VmRSS:");
	if (!a || !r)
		return 0;
	*anon = strtol(a + 8, NULL, 10);
	*rss = strtol(r + 6, NULL, 10);
	return 1;
}

int main(int argc, char **argv)
{
	long interval_us = 1000;
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-i") && i + 1 < argc)
			interval_us = atol(argv[++i]);
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [-i MICROSECONDS] -- CMD [ARGS...]\n", argv[0]);
		return 125;
	}
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	long peak_anon = 0, peak_rss = 0, samples = 0;
	struct timespec ts = {interval_us / 1000000, (interval_us % 1000000) * 1000};
	int status = 0;
	struct rusage ru;
	for (;;) {
		long anon, rss;
		if (interval_us == 0) {
			pid_t w = wait4(pid, &status, 0, &ru);
			if (w == pid)
				break;
			if (w < 0 && errno != EINTR) {
				perror("wait4");
				return 125;
			}
			continue;
		}
		if (sample(path, &anon, &rss)) {
			samples++;
			if (anon > peak_anon)
				peak_anon = anon;
			if (rss > peak_rss)
				peak_rss = rss;
		}
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("wait4");
			return 125;
		}
		nanosleep(&ts, NULL);
	}
	double wall = now() - t0;
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(stderr,
	        "{\"rc\": %d, \"wall_s\": %.4f, \"peak_anon_kb\": %ld, \"peak_rss_kb\": %ld, "
	        "\"maxrss_kb\": %ld, \"samples\": %ld, \"user_s\": %.4f, \"sys_s\": %.4f, "
	        "\"minflt\": %ld}\n",
	        rc, wall, peak_anon, peak_rss, ru.ru_maxrss, samples,
	        (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
	        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6, ru.ru_minflt);
	return rc;
}

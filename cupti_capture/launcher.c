/*
 * cupti_capture/launcher.c: `tix capture [options] -- CMD [ARGS...]`.
 * Owner: cupti_capture.
 *
 * Sets the environment that makes every CUDA process CMD starts load
 * libtixcap.so (CUDA_INJECTION64_PATH) and route NVTX through it into the
 * libcupti it uses (NVTX_INJECTION64_PATH), runs CMD, forwards
 * SIGINT/SIGTERM/SIGHUP sent to us, waits for CMD and for every process it
 * started (a server's ranks may outlive it: we are their subreaper), exits
 * with CMD's status, and hands each journal they wrote to the ingest door
 * the tix program lends us.  Works in builds without CUPTI only far enough
 * to say why capture is unavailable.
 */
#include "cupti_capture/capture.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: tix capture [-o OUT] [--delay S] [--duration S] [--nvtx RANGE]\n"
	"                   [--cuda-profiler-api] [--flush-ms N] [--step-marker REGEX]\n"
	"                   -- CMD [ARGS...]\n"
	"Runs CMD with CUPTI capture; every CUDA process it starts writes\n"
	"OUT/tix.HOST.PID.T.tixj, turned into a .tix next to it when CMD ends.\n"
	"  -o OUT               folder for journals and indexes (default tix-capture-DATE)\n"
	"  --delay S            start capturing S seconds after CUDA starts\n"
	"  --duration S         stop capturing S seconds after the window opened\n"
	"  --nvtx RANGE         capture inside NVTX push/pop ranges named RANGE (RANGE*: prefix)\n"
	"  --cuda-profiler-api  capture between cudaProfilerStart and cudaProfilerStop\n"
	"  --flush-ms N         journal flush period (default 250)\n"
	"  --step-marker REGEX  how the index finds steps (default: built-in rules)\n"
	"Exit status: CMD's (128+N when a signal N ended it); 1 usage; 2 capture unavailable.\n";

static int parse_seconds(const char *opt, const char *v, double *out)
{
	char *end;
	errno = 0;
	double d = v ? strtod(v, &end) : -1;
	if (!v || errno || end == v || *end || d < 0) {
		fprintf(stderr, "tix capture: %s wants seconds (a number >= 0), got '%s'\n", opt,
		        v ? v : "");
		return -1;
	}
	*out = d;
	return 0;
}

#ifdef TIX_HAVE_CUPTI
static volatile sig_atomic_t g_child, g_stop_waiting;

/* Signals sent to us by a process (kill, systemd, a job runner) go on to
 * CMD.  Terminal signals (^C) already reach CMD through the process group:
 * forwarding them too would deliver two.  Once CMD is gone, any of them
 * stops the wait for the processes it left behind. */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (g_child <= 0)
		g_stop_waiting = 1;
	else if (si && si->si_code <= 0)
		kill((pid_t)g_child, sig);
}

static int exists(const char *p) { return access(p, R_OK) == 0; }

/* Where an install puts libtixcap.so, from its bin/tix (the build's
 * GNUInstallDirs: ../lib/tix/libtixcap.so; absolute when those are). */
#ifndef TIXCAP_INSTALL_REL
#define TIXCAP_INSTALL_REL "../lib/tix/libtixcap.so"
#endif

/* libtixcap.so: $TIX_CAPTURE_LIB, next to the tix binary in a build tree
 * (build/cli/tix -> build/cupti_capture/), in an install ($prefix/bin/tix ->
 * $prefix/lib/tix/), then where this build put it. */
static int find_library(const char *exe, char *out, size_t cap)
{
	const char *env = getenv("TIX_CAPTURE_LIB");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return exists(out) ? 0 : -1;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0)
		self[n] = 0;
	else
		snprintf(self, sizeof self, "%s", exe ? exe : "");
	char *slash = strrchr(self, '/');
	if (slash) {
		*slash = 0;
		static const char *rel[] = {"../cupti_capture/libtixcap.so", TIXCAP_INSTALL_REL,
		                            "libtixcap.so"};
		for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
			char cand[PATH_MAX + 64];
			if (rel[i][0] == '/')
				snprintf(cand, sizeof cand, "%s", rel[i]);
			else
				snprintf(cand, sizeof cand, "%s/%s", self, rel[i]);
			if (exists(cand) && realpath(cand, out))
				return 0;
		}
	}
#ifdef TIXCAP_BUILD_LIB
	if (exists(TIXCAP_BUILD_LIB)) {
		snprintf(out, cap, "%s", TIXCAP_BUILD_LIB);
		return 0;
	}
#endif
	return -1;
}

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Journals written since `since` (ours, not those of earlier runs). */
static int index_journals(const char *dir, time_t since, const char *step_marker,
                          tixcap_ingest_fn ingest, int *found)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int rc = 0;
	struct dirent *de;
	*found = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".tixj") != 0)
			continue;
		char path[PATH_MAX + 256];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) != 0 || st.st_mtime < since)
			continue;
		(*found)++;
		if (!ingest) {
			fprintf(stderr, "tix capture: wrote %s (`tix index` builds its index)\n", path);
			continue;
		}
		char out[PATH_MAX + 256];
		struct tix_error err = {0};
		if (ingest(path, step_marker, out, sizeof out, &err) != 0) {
			fprintf(stderr, "tix capture: %s\n", err.msg);
			rc = -1;
		} else {
			fprintf(stderr, "tix capture: wrote %s\n", out);
		}
	}
	closedir(d);
	return rc;
}

/* CMD has exited: its descendants (a server's ranks, a daemonised helper)
 * were reparented to us and may still be writing journals.  Wait for them,
 * or until a signal says to stop waiting. */
static void wait_descendants(const char *cmd)
{
	time_t t0 = time(NULL);
	int said = 0;
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p > 0)
			continue;
		if (p < 0)
			return; /* ECHILD: all gone */
		if (g_stop_waiting) {
			fprintf(stderr, "tix capture: stopped waiting for the processes %s started; "
			                "indexing what they wrote so far\n", cmd);
			return;
		}
		if (!said && time(NULL) - t0 >= 10) {
			said = 1;
			fprintf(stderr, "tix capture: %s exited; waiting for the processes it started "
			                "(Ctrl-C or SIGTERM: index what they wrote so far)\n", cmd);
		}
		usleep(50 * 1000); /* a signal ends it early */
	}
}

static void set_num_env(const char *name, double v, int on)
{
	char buf[64];
	if (!on) {
		unsetenv(name);
		return;
	}
	snprintf(buf, sizeof buf, "%g", v);
	setenv(name, buf, 1);
}

#endif /* TIX_HAVE_CUPTI */

int tixcap_main(int argc, char **argv, const char *tix_exe_path, tixcap_ingest_fn ingest)
{
	const char *out = NULL, *nvtx = NULL, *step_marker = NULL;
	double delay = 0, duration = 0, flush_ms = 250;
	int profiler_api = 0, i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (!v)
				goto missing;
			out = v;
			i++;
		} else if (!strcmp(a, "--delay") || !strcmp(a, "--duration") ||
		           !strcmp(a, "--flush-ms")) {
			double *dst = a[2] == 'd' ? (a[4] == 'l' ? &delay : &duration) : &flush_ms;
			if (parse_seconds(a, v, dst) != 0)
				return 1;
			i++;
		} else if (!strcmp(a, "--nvtx")) {
			if (!v || !*v)
				goto missing;
			nvtx = v;
			i++;
		} else if (!strcmp(a, "--step-marker")) {
			if (!v)
				goto missing;
			step_marker = v;
			i++;
		} else if (!strcmp(a, "--cuda-profiler-api")) {
			profiler_api = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "tix capture: unknown option %s\n%s", a, usage);
			return 1;
		} else {
			break; /* CMD without "--" */
		}
	}
	if (0) {
missing:
		fprintf(stderr, "tix capture: %s needs a value\n%s", argv[i], usage);
		return 1;
	}
	if (i >= argc) {
		fprintf(stderr, "tix capture: no command to run\n%s", usage);
		return 1;
	}
	char **cmd = argv + i;
#ifndef TIX_HAVE_CUPTI
	(void)tix_exe_path;
	(void)ingest;
	(void)cmd;
	(void)out;
	(void)nvtx;
	(void)step_marker;
	(void)profiler_api;
	fprintf(stderr, "tix capture: unavailable: this tix was built without CUPTI (no cupti.h "
	                "and libcupti under TIX_CUDA_ROOT at build time); rebuild with the CUDA "
	                "toolkit, or record a Kineto trace and open it with tix\n");
	return 2;
#else
	char lib[PATH_MAX];
	if (find_library(tix_exe_path, lib, sizeof lib) != 0) {
		fprintf(stderr, "tix capture: unavailable: libtixcap.so not found next to %s, at "
		                "%s from it, or at %s (set TIX_CAPTURE_LIB)\n",
		        tix_exe_path ? tix_exe_path : "tix", TIXCAP_INSTALL_REL, TIXCAP_BUILD_LIB);
		return 2;
	}
	char dir[PATH_MAX], dflt[64];
	if (!out) {
		time_t t = time(NULL);
		strftime(dflt, sizeof dflt, "tix-capture-%Y%m%d-%H%M%S", localtime(&t));
		out = dflt;
	}
	struct stat ost;
	int created = stat(out, &ost) != 0;
	if (mkdir_p(out) != 0 || !realpath(out, dir)) {
		fprintf(stderr, "tix capture: cannot create %s: %s\n", out, strerror(errno));
		return 2;
	}
	setenv("CUDA_INJECTION64_PATH", lib, 1);
	/* NVTX into the same library, which hands it to the libcupti that
	 * capture uses, whichever file that is (CUPTI.md 1.2). */
	setenv("NVTX_INJECTION64_PATH", lib, 1);
	setenv("TIX_CAPTURE_DIR", dir, 1);
	set_num_env("TIX_CAPTURE_DELAY_S", delay, delay > 0);
	set_num_env("TIX_CAPTURE_DURATION_S", duration, duration > 0);
	set_num_env("TIX_CAPTURE_FLUSH_MS", flush_ms, 1);
	set_num_env("TIX_CAPTURE_CUDA_PROFILER_API", 1, profiler_api);
	if (nvtx)
		setenv("TIX_CAPTURE_NVTX", nvtx, 1);
	else
		unsetenv("TIX_CAPTURE_NVTX");

	time_t started = time(NULL);
	struct sigaction sa, old[3];
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* Handlers before fork, so no signal finds us without them; CMD gets
	 * the dispositions we inherited. */
	for (int s = 0; s < 3; s++)
		sigaction(sigs[s], &sa, &old[s]);
	/* Orphans of CMD come to us, so we can wait for them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tix capture: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		for (int s = 0; s < 3; s++)
			sigaction(sigs[s], &old[s], NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "tix capture: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	g_child = pid;
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	g_child = 0;
	int rc;
	if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
		fprintf(stderr, "tix capture: %s ended by signal %d (%s)\n", cmd[0], WTERMSIG(status),
		        strsignal(WTERMSIG(status)));
	} else {
		rc = 2;
	}
	wait_descendants(cmd[0]);
	/* Indexing may take a moment: a ^C now should still stop us. */
	for (int s = 0; s < 3; s++)
		sigaction(sigs[s], &old[s], NULL);
	int found = 0;
	int ir = index_journals(dir, started - 1, step_marker, ingest, &found);
	if (found == 0) {
		if (created)
			rmdir(dir); /* only if empty: what is there stays */
		fprintf(stderr, "tix capture: nothing recorded: %s ran no CUDA%s\n", cmd[0],
		        delay > 0 || duration > 0 || nvtx || profiler_api
		                ? ", or no capture window opened"
		                : "");
	}
	if (ir != 0 && rc == 0)
		rc = 2;
	return rc;
#endif
}

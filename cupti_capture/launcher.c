/*
 * cupti_capture/launcher.c: what `tix capture [options] -- CMD [ARGS...]`
 * does once cli/capture.c has read its options.  Owner: cupti_capture.
 *
 * Sets the environment that makes every CUDA process CMD starts load
 * libtixcap.so (CUDA_INJECTION64_PATH) and route NVTX through it into the
 * libcupti it uses (NVTX_INJECTION64_PATH), runs CMD, forwards
 * SIGINT/SIGTERM/SIGHUP sent to us, waits for CMD and, for a bounded time,
 * for every process it started (a server's ranks may outlive it: we are
 * their subreaper), exits with CMD's status, and hands each journal they
 * wrote to the ingest door the tix program lends us.  In builds without
 * CUPTI it only says why capture is unavailable.
 */
#include "cupti_capture/capture.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* The processes whose parent is us (what CMD left running, reparented to
 * its subreaper), "PID (NAME)" each, at most 4 in buf; returns how many. */
static int leftovers(char *buf, size_t cap)
{
	DIR *d = opendir("/proc");
	int n = 0;
	size_t used = 0;
	buf[0] = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char path[300], line[256], name[64] = "?";
		snprintf(path, sizeof path, "/proc/%s/status", de->d_name);
		FILE *f = fopen(path, "r");
		long ppid = -1;
		while (f && fgets(line, sizeof line, f)) {
			if (!strncmp(line, "Name:", 5))
				sscanf(line + 5, " %63s", name);
			else if (!strncmp(line, "PPid:", 5))
				ppid = strtol(line + 5, NULL, 10);
		}
		if (f)
			fclose(f);
		if (ppid != (long)getpid())
			continue;
		if (n++ < 4 && used < cap)
			used += (size_t)snprintf(buf + used, cap - used, "%s%s (%s)", n > 1 ? ", " : "",
			                         de->d_name, name);
	}
	if (d)
		closedir(d);
	if (n > 4 && used < cap)
		snprintf(buf + used, cap - used, ", ...");
	return n;
}

/* CMD has exited: its descendants (a server's ranks, a daemonised helper)
 * were reparented to us and may still be writing journals.  Wait for them
 * at most wait_s seconds (a signal ends the wait sooner), like nsys's
 * default of waiting for the whole process tree, but bounded: a daemon that
 * never ends must not keep tix running.  What is still running then is left
 * running (it is not ours to kill), and its journal is indexed up to its
 * last flush. */
static void wait_descendants(const char *cmd, double wait_s)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
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
		clock_gettime(CLOCK_MONOTONIC, &now);
		double waited = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (waited >= wait_s) {
			char who[512];
			int n = leftovers(who, sizeof who);
			fprintf(stderr, "tix capture: %d process%s that %s started still running after %g s "
			                "(%s), left running; indexing what they wrote so far "
			                "(--wait S waits longer)\n",
			        n, n == 1 ? "" : "es", cmd, wait_s, who[0] ? who : "?");
			return;
		}
		if (!said && waited >= 10) {
			said = 1;
			if (isinf(wait_s))
				fprintf(stderr, "tix capture: %s exited; waiting for the processes it started "
				                "(Ctrl-C or SIGTERM: index what they wrote so far)\n", cmd);
			else
				fprintf(stderr, "tix capture: %s exited; waiting up to %g s for the processes "
				                "it started (Ctrl-C or SIGTERM: index what they wrote so far)\n",
				        cmd, wait_s);
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

/* What CMD and everything it starts inherits: libtixcap.so as the CUDA
 * injection and as the NVTX one (it hands NVTX to the libcupti capture
 * uses, whichever file that is: CUPTI.md 1.2), the journal folder and the
 * windows.  Stale TIX_CAPTURE_* from our own environment are removed. */
static void set_capture_env(const struct tixcap_opts *o, const char *lib, const char *dir)
{
	setenv("CUDA_INJECTION64_PATH", lib, 1);
	setenv("NVTX_INJECTION64_PATH", lib, 1);
	setenv("TIX_CAPTURE_DIR", dir, 1);
	set_num_env("TIX_CAPTURE_DELAY_S", o->delay_s, o->delay_s > 0);
	set_num_env("TIX_CAPTURE_DURATION_S", o->duration_s, o->duration_s > 0);
	set_num_env("TIX_CAPTURE_FLUSH_MS", o->flush_ms, 1);
	set_num_env("TIX_CAPTURE_CUDA_PROFILER_API", 1, o->profiler_api);
	if (o->nvtx)
		setenv("TIX_CAPTURE_NVTX", o->nvtx, 1);
	else
		unsetenv("TIX_CAPTURE_NVTX");
}

/* Runs CMD, forwarding the signals sent to us, then waits for what it left
 * running.  Returns CMD's status for tix (128+N: signal N; 127: not run). */
static int run_cmd(char *const *cmd, double wait_s)
{
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
		struct tix_error err;
		tix_error_sys(&err, errno, "fork");
		fprintf(stderr, "tix capture: %s\n", err.msg);
		return 2;
	}
	if (pid == 0) {
		for (int s = 0; s < 3; s++)
			sigaction(sigs[s], &old[s], NULL);
		execvp(cmd[0], cmd);
		struct tix_error err;
		tix_error_errno(&err, errno, "cannot run %s", cmd[0]);
		fprintf(stderr, "tix capture: %s\n", err.msg);
		_exit(127);
	}
	g_child = pid;
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	g_child = 0;
	int rc = 2;
	if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
		fprintf(stderr, "tix capture: %s ended by signal %d (%s)\n", cmd[0], WTERMSIG(status),
		        strsignal(WTERMSIG(status)));
	}
	wait_descendants(cmd[0], wait_s);
	/* Indexing may take a moment: a ^C now should still stop us. */
	for (int s = 0; s < 3; s++)
		sigaction(sigs[s], &old[s], NULL);
	return rc;
}

#endif /* TIX_HAVE_CUPTI */

int tixcap_run(const struct tixcap_opts *o, const char *tix_exe_path, tixcap_ingest_fn ingest)
{
	char *const *cmd = o->cmd;
#ifndef TIX_HAVE_CUPTI
	(void)tix_exe_path;
	(void)ingest;
	(void)cmd;
#ifndef TIXCAP_WHY_NOT
#define TIXCAP_WHY_NOT "no CUPTI at build time"
#endif
	fprintf(stderr, "tix capture: unavailable: this tix was built without CUPTI capture: %s; rebuild "
	                "with the CUDA 13 toolkit (TIX_CUDA_ROOT), or record a Kineto trace and open "
	                "it with tix\n", TIXCAP_WHY_NOT);
	return 2;
#else
	char lib[PATH_MAX];
	if (find_library(tix_exe_path, lib, sizeof lib) != 0) {
		fprintf(stderr, "tix capture: unavailable: libtixcap.so not found next to %s, at "
		                "%s from it, or at %s (set TIX_CAPTURE_LIB)\n",
		        tix_exe_path ? tix_exe_path : "tix", TIXCAP_INSTALL_REL, TIXCAP_BUILD_LIB);
		return 2;
	}
	const char *out = o->out;
	char dir[PATH_MAX], dflt[64];
	if (!out) {
		time_t t = time(NULL);
		strftime(dflt, sizeof dflt, "tix-capture-%Y%m%d-%H%M%S", localtime(&t));
		out = dflt;
	}
	struct stat ost;
	int created = stat(out, &ost) != 0;
	if (mkdir_p(out) != 0 || !realpath(out, dir)) {
		struct tix_error err;
		tix_error_errno(&err, errno, "cannot create %s", out);
		fprintf(stderr, "tix capture: %s\n", err.msg);
		return 2;
	}
	set_capture_env(o, lib, dir);
	time_t started = time(NULL);
	int rc = run_cmd(cmd, o->wait_s);
	int found = 0;
	int ir = index_journals(dir, started - 1, o->step_marker, ingest, &found);
	if (found == 0) {
		if (created)
			rmdir(dir); /* only if empty: what is there stays */
		int windowed = o->delay_s > 0 || o->duration_s > 0 || o->nvtx || o->profiler_api;
		fprintf(stderr, "tix capture: nothing recorded: %s ran no CUDA%s\n", cmd[0],
		        windowed ? ", or no capture window opened" : "");
	}
	if (ir != 0 && rc == 0)
		rc = 2;
	return rc;
#endif
}

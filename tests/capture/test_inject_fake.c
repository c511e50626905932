/*
 * tests/capture/test_inject_fake.c: libtixcap.so end to end against the
 * stand-in libcupti (fake_cupti.c, found through LD_LIBRARY_PATH): a host
 * process loads it, calls InitializeInjection, lets the flush and writer
 * threads run, then leaves by exit() (journal closed with END), by _exit()
 * or by SIGKILL (journal kept up to the last flush).  A child forked without
 * exec must not touch the parent's journal.  Owner: cupti_capture.
 * Usage: test_inject_fake PATH/libtixcap.so SCRATCHDIR
 */
#include "tests/capture/capture_test.h"

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cupti_capture/capture.h"

static void host(const char *lib, const char *dir, int how)
{
	setenv("TIX_CAPTURE_DIR", dir, 1);
	setenv("TIX_CAPTURE_FLUSH_MS", "20", 1);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
	if (!init || init() != 1)
		_exit(99);
	usleep(300 * 1000); /* 15 flush periods: the three fake buffers are written */
	if (how == 0) {
		pid_t c = fork(); /* a fork without exec, e.g. a dataloader worker */
		if (c == 0)
			exit(0); /* runs atexit: must not write to our journal */
		waitpid(c, NULL, 0);
		exit(0);
	}
	if (how == 1)
		_exit(0);
	raise(SIGKILL);
}

static int check(const char *lib, const char *scratch, int how)
{
	static const char *names[] = {"exit", "_exit", "sigkill"};
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/fake.%s.%d", scratch, names[how], (int)getpid());
	mkdir(dir, 0755);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0)
		host(lib, dir, how);
	int st;
	waitpid(p, &st, 0);
	int before = t_failures;
	if (how < 2)
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	else
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	char path[8192] = "";
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".tixj")) {
			snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
			n++;
		}
	if (d)
		closedir(d);
	CHECK_EQ_INT(n, 1);
	struct rec_sink r;
	struct tix_sink s;
	rec_init(&r, &s);
	struct tixcap_journal_result res;
	struct tix_error err = {0};
	CHECK(n == 1 && tixcap_journal_read(path, &s, &res, &err) == 0);
	CHECK(!res.truncated);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_KERNEL), 9); /* 3 buffers x 3 kernels */
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_USER_ANNOTATION), 15);
	CHECK(rec_find(&r, TIX_KIND_RUNTIME, "cudaLaunchKernel") != NULL);
	int closed = strstr(r.warnings, "was not closed") == NULL;
	CHECK_EQ_INT(closed, how == 0);
	printf("test_inject_fake %s: %s (%zu events)%s%s\n", names[how],
	       t_failures == before ? "ok" : "FAIL", r.n, r.warnings[0] ? "; " : "", r.warnings);
	rec_free(&r);
	if (n == 1)
		unlink(path);
	rmdir(dir);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_inject_fake LIB SCRATCHDIR\n");
		return 2;
	}
	for (int how = 0; how < 3; how++)
		check(argv[1], argv[2], how);
	return t_failures ? 1 : 0;
}

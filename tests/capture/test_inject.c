/*
 * tests/capture/test_inject.c: libtixcap.so without a GPU or driver.
 * dlopen it as libcuda would, call InitializeInjection twice: it must
 * return 1 (cuInit goes on), print exactly one line naming the cause,
 * create no file, and export nothing but InitializeInjection and
 * InitializeInjectionNvtx2.
 * Owner: cupti_capture.  Usage: test_inject PATH/libtixcap.so SCRATCHDIR
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_inject LIB SCRATCHDIR\n");
		return 2;
	}
	char dir[4096], log[4200];
	snprintf(dir, sizeof dir, "%s/inject.%d", argv[2], (int)getpid());
	mkdir(dir, 0755);
	snprintf(log, sizeof log, "%s.log", dir);
	setenv("TIX_CAPTURE_DIR", dir, 1);
	setenv("TIX_CAPTURE_FLUSH_MS", "20", 1);

	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
	int fails = 0;
	if (!init) {
		fprintf(stderr, "InitializeInjection not exported\n");
		return 1;
	}
	/* NVTX's entry point, which hands NVTX to the libcupti in use */
	if (!dlsym(h, "InitializeInjectionNvtx2") || !dlsym(h, "InitializeInjectionNvtxExtension")) {
		fprintf(stderr, "InitializeInjectionNvtx2 or ...NvtxExtension not exported\n");
		fails++;
	}
	/* internal symbols stay hidden */
	if (dlsym(h, "tixj_flush") || dlsym(h, "tixcap_pool_get")) {
		fprintf(stderr, "internal symbols are exported\n");
		fails++;
	}
	fflush(stderr);
	int saved = dup(2);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	int r1 = init();
	int r2 = init();
	fflush(stderr);
	dup2(saved, 2);
	close(fd);
	if (r1 != 1 || r2 != 1) {
		fprintf(stderr, "InitializeInjection returned %d, %d; want 1, 1\n", r1, r2);
		fails++;
	}
	char text[4096] = "";
	FILE *f = fopen(log, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = 0;
	int lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += text[i] == '\n';
	if (lines != 1 || strncmp(text, "tixcap: pid ", 12) != 0 || !strstr(text, "capture off")) {
		fprintf(stderr, "want one 'tixcap: pid N: capture off: ...' line, got %d:\n%s", lines, text);
		fails++;
	}
	usleep(100 * 1000); /* a stray writer thread would have written by now */
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			fprintf(stderr, "file created: %s\n", de->d_name);
			fails++;
		}
	if (d)
		closedir(d);
	rmdir(dir);
	unlink(log);
	printf("test_inject: %s: %s", fails ? "FAIL" : "ok", text);
	return fails ? 1 : 0;
}

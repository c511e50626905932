/*
 * Writing a file tix was asked to write (an index, an export): the one door
 * (index.h, "output files").  Models: coreutils' install and sort -o, git's
 * lockfiles.
 *
 * - What is at the path decides how it is written.  Nothing or a regular
 *   file: the data goes to an unnamed file (O_TMPFILE) in the same folder,
 *   named PATH.tmpXXXXXX only once complete and renamed over PATH, so PATH
 *   holds the old file or the whole new one, never a part.  A FIFO, a
 *   character device (/dev/null, a terminal) or the name of a descriptor
 *   (/dev/stdout, /dev/fd/N): the data is written through it, when the
 *   content can go through a pipe at all (an export; an index must be a
 *   file tix can map); it is never renamed over.  A directory, a socket, a
 *   block device: refused.
 * - The output is never one of the inputs (device and inode, so hard links
 *   and symbolic links count): refused before anything is written.
 * - A symbolic link the user names is followed when it is the user's own
 *   or root's (a planted link is not: the kernel's protected_symlinks rule);
 *   tix's own places (beside the trace, the cache) are never followed: a
 *   link there is replaced.
 * - The mode is what the umask gives, with read for group and others only
 *   where the file it is made from allows it (an index of a 0600 trace is
 *   0600), never more than the file it replaces, and an index is never
 *   writable by group or others (such an index is not trusted: cli/open.c).
 * - SIGINT, SIGTERM, SIGHUP and SIGQUIT remove a named temporary (the
 *   unnamed one goes with the process anyway); SIGKILL between the naming
 *   and the rename (two system calls) leaves one whole PATH.tmpXXXXXX.
 */
#include "index/index.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- temporary names: removed when a signal ends the process ----
 * The handler can only reach static storage; at most a few outputs are
 * open at once (an index and an export). */
#define PENDING_MAX 4
static char pending_path[PENDING_MAX][PATH_MAX];
static volatile sig_atomic_t pending_on[PENDING_MAX];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NCLEANUP (int)(sizeof cleanup_signals / sizeof cleanup_signals[0])
static struct sigaction cleanup_old[NCLEANUP];
static int cleanup_installed;

static void on_cleanup_signal(int sig, siginfo_t *si, void *uc)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending_on[i])
			unlink(pending_path[i]);
	for (int i = 0; i < NCLEANUP; i++) {
		if (cleanup_signals[i] != sig)
			continue;
		struct sigaction *old = &cleanup_old[i];
		if (old->sa_flags & SA_SIGINFO) { /* the handler that was there goes on */
			old->sa_sigaction(sig, si, uc);
			return;
		}
		if (old->sa_handler == SIG_IGN)
			return;
		if (old->sa_handler != SIG_DFL) {
			old->sa_handler(sig);
			return;
		}
		signal(sig, SIG_DFL); /* die of it, as the sender meant */
		raise(sig);
	}
}

/* Installed while a named temporary exists, and only then: the handlers
 * that were there come back after (ncurses installs its own for SIGINT and
 * SIGTERM only where it finds none, to restore the terminal). */
static void cleanup_install(void)
{
	if (cleanup_installed)
		return;
	cleanup_installed = 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_cleanup_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int i = 0; i < NCLEANUP; i++)
		sigaction(cleanup_signals[i], &sa, &cleanup_old[i]);
}

static int pending_add(const char *path)
{
	if (strlen(path) >= PATH_MAX)
		return -1;
	cleanup_install();
	for (int i = 0; i < PENDING_MAX; i++)
		if (!pending_on[i]) {
			memcpy(pending_path[i], path, strlen(path) + 1);
			pending_on[i] = 1;
			return i;
		}
	return -1; /* not guarded; still removed on every other way out */
}

static void pending_remove(int slot)
{
	if (slot < 0 || slot >= PENDING_MAX)
		return;
	pending_on[slot] = 0;
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending_on[i])
			return;
	if (cleanup_installed) { /* none left: the handlers as they were */
		for (int i = 0; i < NCLEANUP; i++)
			sigaction(cleanup_signals[i], &cleanup_old[i], NULL);
		cleanup_installed = 0;
	}
}

int tix_random_name(char *xs, size_t n)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[64];
	if (n > sizeof r)
		n = sizeof r;
	size_t got = 0;
	while (got < n) {
		ssize_t k = getrandom(r + got, n - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	for (size_t i = 0; i < n; i++)
		xs[i] = chars[r[i] % (sizeof chars - 1)];
	return 0;
}

/* ---- what is at the path ---- */

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor it
 * names, else -1. */
static int descriptor_name(const char *path)
{
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	const char *num = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
	if (!num || !*num)
		return -1;
	long fd = 0;
	for (const char *c = num; *c; c++) {
		if (*c < '0' || *c > '9' || fd > 1000000)
			return -1;
		fd = fd * 10 + (*c - '0');
	}
	return (int)fd;
}

static int is_input(const struct tix_out_opts *o, const struct stat *st)
{
	for (int i = 0; o && i < o->ninputs; i++)
		if (o->inputs[i].dev == (uint64_t)st->st_dev && o->inputs[i].ino == (uint64_t)st->st_ino)
			return 1;
	return 0;
}

static int refuse(struct tix_error *err, const char *path, const char *why)
{
	return tix_error_usage(err, "%s: %s", path, why);
}

/* The link at path, read and made a path of its own (relative to the
 * link's folder). */
static int read_link(const char *path, char *out, size_t cap)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n < 0)
		return -1;
	target[n] = 0;
	const char *slash = strrchr(path, '/');
	int len = target[0] == '/' || !slash ? snprintf(out, cap, "%s", target)
	                                     : snprintf(out, cap, "%.*s/%s", (int)(slash - path), path, target);
	return len < 0 || (size_t)len >= cap ? -1 : 0;
}

enum out_kind { OUT_NEW, OUT_REPLACE, OUT_THROUGH, OUT_DESCRIPTOR };

/* Decides how path is written: *kind, the path to write (links followed
 * where that is allowed) in final, and for OUT_REPLACE the mode of what is
 * replaced.  0, or -1 with err set (a refusal: TIX_ERR_USAGE). */
static int resolve(const char *path, const struct tix_out_opts *o, char *final, size_t cap, enum out_kind *kind,
                   mode_t *old_mode, struct tix_error *err)
{
	snprintf(final, cap, "%s", path);
	for (int hops = 0;; hops++) {
		struct stat st;
		int fd = o->follow ? descriptor_name(final) : -1;
		if (fd >= 0) { /* /dev/stdout, /dev/fd/N, or a link of the user's to one */
			if (fstat(fd, &st) != 0)
				return tix_error_errno(err, errno, "%s", path);
			if (!o->stream)
				return refuse(err, path, "names a descriptor: an index must be a file tix can map");
			if (is_input(o, &st))
				return refuse(err, path, "is the input of this command: choose another output");
			*kind = OUT_DESCRIPTOR;
			snprintf(final, cap, "%d", fd);
			return 0;
		}
		if (lstat(final, &st) != 0) {
			if (errno != ENOENT)
				return tix_error_errno(err, errno, "%s", path);
			*kind = OUT_NEW;
			return 0;
		}
		if (S_ISLNK(st.st_mode)) {
			if (!o->follow) { /* tix's own place: what is in the way goes */
				*kind = OUT_NEW;
				return 0;
			}
			if (st.st_uid != geteuid() && st.st_uid != 0)
				return refuse(err, path, "a symbolic link of another user's: not followed (write to its target)");
			char next[PATH_MAX];
			if (hops >= 40 || read_link(final, next, sizeof next) != 0)
				return refuse(err, path, "too many levels of symbolic links");
			snprintf(final, cap, "%s", next);
			continue;
		}
		/* the user's path only: a rename at tix's own place (a hard link of
		 * the trace at TRACE.tix) replaces a name, not the trace's data */
		if (o->follow && is_input(o, &st))
			return refuse(err, path, "is the input of this command: choose another output");
		if (S_ISREG(st.st_mode)) {
			*kind = OUT_REPLACE;
			*old_mode = st.st_mode & 0777;
			return 0;
		}
		if (S_ISDIR(st.st_mode))
			return refuse(err, path, "is a directory: name a file in it");
		if (S_ISSOCK(st.st_mode))
			return refuse(err, path, "is a socket: tix writes files, FIFOs and character devices");
		if (S_ISBLK(st.st_mode))
			return refuse(err, path, "is a block device: tix writes no disk");
		if (!o->stream || !o->follow)
			return refuse(err, path, "not a regular file (a FIFO or device): an index must be a file tix can map");
		*kind = OUT_THROUGH; /* a FIFO, a character device */
		return 0;
	}
}

static mode_t output_mode(const struct tix_out_opts *o, enum out_kind kind, mode_t old_mode)
{
	mode_t mask = umask(0);
	umask(mask);
	mode_t m = 0666 & ~mask;
	if (o->from_mode)
		m &= 0600 | (o->from_mode & 0044); /* group and others read it only if they read the source */
	if (kind == OUT_REPLACE)
		m &= old_mode | 0600;
	if (o->index)
		m &= ~(mode_t)0022;
	return m;
}

int tix_outfile_check(const char *path, const struct tix_out_opts *o, struct tix_error *err)
{
	char final[PATH_MAX];
	enum out_kind kind;
	mode_t old;
	return resolve(path, o, final, sizeof final, &kind, &old, err);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int tix_outfile_open(struct tix_outfile *f, const char *path, const struct tix_out_opts *o,
                     struct tix_error *err)
{
	memset(f, 0, sizeof *f);
	f->fd = -1;
	f->slot = -1;
	if (!(f->name = strdup(path)))
		return tix_error_oom(err, path);
	f->through = 1;
	char final[PATH_MAX];
	enum out_kind kind;
	mode_t old_mode = 0;
	if (resolve(path, o, final, sizeof final, &kind, &old_mode, err) != 0) {
		tix_outfile_abort(f);
		return -1;
	}
	if (kind == OUT_DESCRIPTOR) {
		if ((f->fd = fcntl(atoi(final), F_DUPFD_CLOEXEC, 3)) < 0) {
			tix_error_errno(err, errno, "%s", path);
			tix_outfile_abort(f);
			return -1;
		}
		return 0;
	}
	if (kind == OUT_THROUGH) {
		/* a FIFO waits for its reader, as `cat > FIFO` does */
		f->fd = open(final, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		struct stat st;
		int rc = f->fd < 0 ? tix_error_errno(err, errno, "%s", path)
		         : fstat(f->fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)
		             ? refuse(err, path, "changed while it was opened")
		             : 0;
		if (rc != 0)
			tix_outfile_abort(f);
		return rc;
	}
	f->through = 0;
	mode_t mode = output_mode(o, kind, old_mode);
	f->path = strdup(final);
	f->dir = dir_of(final);
	size_t n = strlen(final) + 16;
	f->tmp = malloc(n);
	if (!f->path || !f->dir || !f->tmp) {
		tix_outfile_abort(f);
		return tix_error_oom(err, path);
	}
	snprintf(f->tmp, n, "%s.tmpXXXXXX", final);
	/* Unnamed first: killed at any moment, it leaves nothing behind.
	 * Where O_TMPFILE is not supported, a named temporary from the start. */
	static int no_tmpfile = -1; /* tests take the named path on any file system */
	if (no_tmpfile < 0)
		no_tmpfile = getenv("TIX_NO_TMPFILE") != NULL;
	f->fd = no_tmpfile ? -1 : open(f->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (f->fd >= 0) {
		f->unnamed = 1;
	} else {
		f->fd = mkostemp(f->tmp, O_CLOEXEC);
		if (f->fd >= 0)
			f->slot = pending_add(f->tmp);
	}
	if (f->fd < 0) {
		int e = errno;
		free(f->tmp);
		f->tmp = NULL;
		tix_outfile_abort(f);
		return tix_error_errno(err, e, "%s: cannot create", path);
	}
	fchmod(f->fd, mode); /* exactly: O_TMPFILE and mkostemp apply their own */
	return 0;
}

/* Gives the unnamed file its temporary name, PATH.tmpXXXXXX with random
 * letters, linked through /proc. */
static int name_unnamed(struct tix_outfile *f)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
	size_t n = strlen(f->tmp);
	for (int tries = 0; tries < 100; tries++) {
		if (tix_random_name(f->tmp + n - 6, 6) != 0)
			return -1;
		f->slot = pending_add(f->tmp); /* before the name exists */
		if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) == 0) {
			f->unnamed = 0;
			return 0;
		}
		int e = errno;
		pending_remove(f->slot);
		f->slot = -1;
		if (e != EEXIST) {
			errno = e;
			return -1;
		}
	}
	return -1;
}

int tix_outfile_commit(struct tix_outfile *f, struct tix_error *err)
{
	int rc = 0;
	if (f->through) {
		if (close(f->fd) != 0)
			rc = tix_error_errno(err, errno, "%s: cannot write", f->name);
		f->fd = -1;
		tix_outfile_abort(f);
		return rc;
	}
	if (f->unnamed && name_unnamed(f) != 0) {
		rc = tix_error_sys(err, errno, "%s: cannot name the new file", f->name);
	} else {
		int closed = close(f->fd);
		f->fd = -1;
		if (closed != 0)
			rc = tix_error_sys(err, errno, "%s: cannot write", f->name);
		else if (rename(f->tmp, f->path) != 0)
			rc = tix_error_sys(err, errno, "%s: cannot rename into place", f->name);
		else {
			free(f->tmp);
			f->tmp = NULL; /* nothing left to remove */
		}
	}
	tix_outfile_abort(f);
	return rc;
}

void tix_outfile_abort(struct tix_outfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp && !f->unnamed && !f->through)
		unlink(f->tmp);
	pending_remove(f->slot);
	f->slot = -1;
	free(f->tmp);
	free(f->path);
	free(f->dir);
	free(f->name);
	f->tmp = f->path = f->dir = f->name = NULL;
}

/*
 * Where an index may live, and which index tix may trust (docs/CLI.md,
 * "Where the index lives").  Private to cli/ (cli.h); open.c asks it.
 *
 * Trust, as git and ssh judge the files they read: an index found beside a
 * trace is used only when the running user wrote it, or root did (a user
 * trusts root in any case), and nobody else can write it; an index of
 * another user's is never used nor replaced: tix builds its own in the
 * user's cache.  The cache folder is used only when it is the user's and
 * not writable by others, in a folder others cannot rename it out of;
 * otherwise the index is built for the command alone, in a folder made for
 * it (mkdtemp), and removed after it.
 */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The builder names its temporary file OUT.tmpXXXXXX: an index path is
 * usable when that name fits the file system's limit on names. */
#define TMP_SUFFIX_LEN 10

static int name_fits(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strlen(base) + TMP_SUFFIX_LEN <= NAME_MAX;
}

static int dir_writable(const char *file)
{
	char *copy = strdup(file);
	if (!copy)
		return 0;
	char *slash = strrchr(copy, '/');
	const char *dir = ".";
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
	}
	int ok = access(dir, W_OK | X_OK) == 0;
	free(copy);
	return ok;
}

/* An environment variable that names an absolute path (the XDG spec: a
 * relative one is invalid and ignored), or NULL. */
static const char *abs_env(const char *name)
{
	const char *v = getenv(name);
	return v && v[0] == '/' ? v : NULL;
}

/* Why dir (a folder tix keeps indexes in) is not safe to use, or NULL:
 * it must be a directory of the user's that group and others cannot write,
 * in a folder of the user's or root's that others cannot write (or that is
 * sticky, as /tmp), so nobody else can plant, change or swap what is in it. */
static const char *unsafe_dir(const char *dir, char *why, size_t cap)
{
	struct stat st;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, cap, "not a directory");
		return why;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, cap, "owned by uid %u, not by you (uid %u)", (unsigned)st.st_uid, (unsigned)geteuid());
		return why;
	}
	if (st.st_mode & 022) {
		snprintf(why, cap, "writable by others (mode %04o)", (unsigned)(st.st_mode & 07777));
		return why;
	}
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", dir);
	char *slash = strrchr(parent, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	if (stat(parent[0] ? parent : "/", &st) != 0)
		return NULL;
	if ((st.st_uid != geteuid() && st.st_uid != 0) || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
		snprintf(why, cap, "its folder %s is another user's or writable by others", parent[0] ? parent : "/");
		return why;
	}
	return NULL;
}

int cli_cache_dir(char *out, size_t cap, char *why, size_t whycap)
{
	const char *xdg = abs_env("XDG_CACHE_HOME"), *home = abs_env("HOME"), *tmp = abs_env("TMPDIR");
	int n;
	why[0] = 0;
	if (xdg)
		n = snprintf(out, cap, "%s/tix", xdg);
	else if (home)
		n = snprintf(out, cap, "%s/.cache/tix", home);
	else
		n = snprintf(out, cap, "%s/tix-%ld", tmp ? tmp : "/tmp", (long)geteuid());
	if (n < 0 || (size_t)n >= cap)
		return -1;
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", out);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent && (xdg || home)) {
		*slash = '\0';
		mkdir(parent, 0700); /* $XDG_CACHE_HOME or ~/.cache, as the XDG spec makes them */
	}
	if (mkdir(out, 0700) != 0 && errno != EEXIST)
		return -1;
	return unsafe_dir(out, why, whycap) ? -1 : 0;
}

int cli_index_places(const char *trace, char places[][PATH_MAX], int *cache_at, int *beside_ro, char *why,
                     size_t whycap)
{
	int n = 0;
	char real[PATH_MAX];
	*cache_at = -1;
	if (!realpath(trace, real))
		snprintf(real, sizeof(real), "%s", trace);
	struct stat st;
	int len = snprintf(places[n], PATH_MAX, "%s.tix", real);
	*beside_ro = 0;
	if (len > 0 && len < PATH_MAX && name_fits(places[n])) {
		int there = stat(places[n], &st) == 0;
		if (there ? S_ISREG(st.st_mode) : errno == ENOENT) {
			if (dir_writable(real))
				n++;
			else if (there) /* read, if trusted; never written */
				*beside_ro = 1, n++;
		}
	}
	char dir[PATH_MAX];
	if (cli_cache_dir(dir, sizeof(dir), why, whycap) == 0) {
		/* the real path's hash, then as much of its name as fits */
		const char *base = strrchr(real, '/');
		base = base ? base + 1 : real;
		size_t keep = strlen(base), room = NAME_MAX - TMP_SUFFIX_LEN - 17 - 4;
		if (keep > room) {
			keep = room;
			while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
				keep--; /* not inside a UTF-8 sequence */
		}
		len = snprintf(places[n], PATH_MAX, "%s/%016llx-%.*s.tix", dir,
		               (unsigned long long)tix_hash64(real, strlen(real), 0), (int)keep, base);
		if (len > 0 && len < PATH_MAX)
			*cache_at = n++;
	}
	return n;
}

enum index_trust cli_index_trust(const struct tix_index *ix)
{
	struct tix_file_info f;
	tix_index_file(ix, &f); /* of the file that was opened: no race with a rename */
	if (f.uid != geteuid() && f.uid != 0)
		return TRUST_FOREIGN;
	return f.mode & 022 ? TRUST_LOOSE : TRUST_OK;
}

int cli_private_dir(char *out, size_t cap)
{
	const char *tmp = abs_env("TMPDIR");
	int n = snprintf(out, cap, "%s/tix-XXXXXX", tmp ? tmp : "/tmp");
	if (n < 0 || (size_t)n >= cap)
		return -1;
	return mkdtemp(out) ? 0 : -1;
}

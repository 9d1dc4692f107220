/* write.c - safe replacement of output files (see write.h). */
#define _POSIX_C_SOURCE 200809L
#include "ptoopt/write.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptoopt/arena.h"

/* The temporary file while it exists, for the signal handler and for an
 * out-of-memory exit inside the writer: a fixed buffer, since a handler
 * may read nothing else. */
static char tmp_path[PATH_MAX + 32];
static volatile sig_atomic_t tmp_live;

static void remove_tmp(void)
{
	if (tmp_live)
		unlink(tmp_path);
	tmp_live = 0;
}

void write_discard_tmp_in_signal(void)
{
	if (tmp_live)
		unlink(tmp_path); /* async-signal-safe */
}

static void on_signal(int sig)
{
	if (tmp_live)
		unlink(tmp_path); /* async-signal-safe */
	_exit(128 + sig);
}

void write_install_signal_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* an ignored signal (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* The file path finally names, following symbolic links (at most 40, as
 * the kernel does); path itself when it is not a link.  A dangling link
 * resolves to the file it would create.  NULL after a message. */
static char *resolve_target(const char *path)
{
	char *cur = xmalloc(strlen(path) + 1);
	strcpy(cur, path);
	for (int hops = 0;; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		if (hops == 40) {
			fprintf(stderr, "ptoopt: error: cannot write '%s': too many levels of symbolic links\n", path);
			free(cur);
			return NULL;
		}
		char link[PATH_MAX];
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0) {
			fprintf(stderr, "ptoopt: error: cannot read the link '%s': %s\n", cur, strerror(errno));
			free(cur);
			return NULL;
		}
		link[n] = 0;
		char *next;
		const char *slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash) {
			next = xmalloc((size_t)n + 1);
			memcpy(next, link, (size_t)n + 1);
		} else {
			/* relative to the link's directory */
			size_t dl = (size_t)(slash - cur) + 1;
			next = xmalloc(dl + (size_t)n + 1);
			memcpy(next, cur, dl);
			memcpy(next + dl, link, (size_t)n + 1);
		}
		free(cur);
		cur = next;
	}
}

/* Give the new file fd what the replaced file had: owner and group first
 * (only a privileged process can give a file away), then the mode, less
 * the set-ID bits when the owner could not be kept. */
static void keep_attributes(int fd, const struct stat *old)
{
	mode_t mode = old->st_mode & 07777;
	struct stat now;
	if (fstat(fd, &now) == 0 && (now.st_uid != old->st_uid || now.st_gid != old->st_gid)) {
		if (fchown(fd, old->st_uid, old->st_gid) != 0) {
			/* keep the group when possible, never a set-ID bit for another owner */
			if (fchown(fd, (uid_t)-1, old->st_gid) != 0 || now.st_uid != old->st_uid)
				mode &= ~(mode_t)(S_ISUID | S_ISGID);
		}
	}
	if (fchmod(fd, mode) != 0) {
		/* not fatal: the file keeps mkstemp's 0600 */
	}
}

static int write_direct(const char *path, WriteFn fn, void *ctx)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "ptoopt: error: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	int err = fn(f, ctx);
	if (fclose(f) != 0 && !err)
		err = errno;
	if (err) {
		fprintf(stderr, "ptoopt: error: cannot write '%s': %s\n", path, strerror(err));
		return 1;
	}
	return 0;
}

int write_atomic(const char *path, WriteFn fn, void *ctx)
{
	char *target = resolve_target(path);
	if (!target)
		return 1;
	struct stat ost;
	bool exists = stat(target, &ost) == 0;
	if (exists && !S_ISREG(ost.st_mode)) {
		int rc = write_direct(target, fn, ctx);
		free(target);
		return rc;
	}
	if (strlen(target) > PATH_MAX) {
		fprintf(stderr, "ptoopt: error: cannot write '%s': %s\n", path, strerror(ENAMETOOLONG));
		free(target);
		return 1;
	}
	snprintf(tmp_path, sizeof tmp_path, "%s.tmpXXXXXX", target);
	set_oom_handler(remove_tmp);
	tmp_live = 1; /* before the file exists: a signal in between unlinks nothing */
	int fd = mkstemp(tmp_path);
	if (fd < 0) {
		tmp_live = 0;
		fprintf(stderr, "ptoopt: error: cannot create a temporary file next to '%s': %s\n", target, strerror(errno));
		free(target);
		return 1;
	}
	FILE *f = fdopen(fd, "wb");
	int err = 0;
	if (!f) {
		err = errno;
		close(fd);
	} else {
		err = fn(f, ctx);
		if (fflush(f) != 0 && !err)
			err = errno;
		/* attributes once the data is in: a write would clear set-ID bits */
		if (!err && exists) {
			keep_attributes(fd, &ost);
		} else if (!err) {
			/* the usual permissions of a new file */
			mode_t um = umask(0);
			umask(um);
			if (fchmod(fd, 0666 & ~um) != 0) {
				/* not fatal */
			}
		}
		if (fclose(f) != 0 && !err)
			err = errno;
	}
	if (!err && rename(tmp_path, target) != 0)
		err = errno;
	if (err) {
		fprintf(stderr, "ptoopt: error: cannot write '%s': %s\n", path, strerror(err));
		unlink(tmp_path);
	}
	tmp_live = 0;
	free(target);
	return err ? 1 : 0;
}

typedef struct Bytes {
	const char *data;
	size_t len;
} Bytes;

static int put_bytes(FILE *f, void *ctx)
{
	const Bytes *b = ctx;
	if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
		return errno ? errno : EIO;
	return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	Bytes b = { data, len };
	return write_atomic(path, put_bytes, &b);
}

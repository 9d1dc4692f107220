/* file_read.c - reading a whole file or stream into memory (file_read.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_* on glibc */
#include "ptoopt/file_read.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptoopt/arena.h"
#include "ptoopt/write.h"

/* The buffer's size and kind are kept in front of the text, for file_free. */
#define HEADER 16

/* From this size on the buffer is made of huge pages even when that rounds
 * it up: reading a 1 MB file into 4 KB pages costs 256 page faults, some
 * 10-20 us each on a virtual machine, against one for a 2 MB page. */
#define HUGE_FROM ((size_t)256 << 10)

static char *buffer_new(size_t cap)
{
	size_t n = cap + HEADER;
	mem_charge(n); /* an endless stdin stops at the memory limit */
	char *base = n >= HUGE_FROM ? xzalloc_huge(n) : xzalloc_big(n);
	((size_t *)(void *)base)[0] = n;
	return base + HEADER;
}

/* ------------------------------------------------------------ mapped files
 *
 * A large regular file is mapped instead of read: no copy, and no fresh
 * pages to zero (reading 2.5 MB took 1-2 ms, mapping it 0.3).  Its NUL is
 * the zero fill after the last byte of the last page, so a file whose size
 * is a whole number of pages is read.  The mapping is private: a write to
 * the text stays ours.  A file made shorter while it is mapped (another
 * program truncating it) faults on the lost pages; the SIGBUS handler
 * reports that instead of a crash. */

#define MAPS_MAX 8
static struct {
	char *text;
	size_t len;
	char *path; /* for the handler's message */
} maps[MAPS_MAX];

static size_t page_size(void)
{
	static size_t pg;
	if (!pg) {
		long n = sysconf(_SC_PAGESIZE);
		pg = n > 0 ? (size_t)n : 4096;
	}
	return pg;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	const char *a = si->si_addr;
	for (int i = 0; i < MAPS_MAX; i++) {
		if (maps[i].text && a >= maps[i].text && a < maps[i].text + maps[i].len + page_size()) {
			static const char head[] = "ptoopt: error: '", tail[] = "' was made shorter while it was read\n";
			ssize_t w = write(2, head, sizeof head - 1);
			w = write(2, maps[i].path, strlen(maps[i].path));
			w = write(2, tail, sizeof tail - 1);
			(void)w;
			write_discard_tmp_in_signal();
			_exit(1);
		}
	}
	/* not ours: the default action, when the access is made again */
	signal(sig, SIG_DFL);
}

static char *map_file(const char *path, int fd, size_t n)
{
	if (n < HUGE_FROM || n % page_size() == 0)
		return NULL;
	int slot = 0;
	while (slot < MAPS_MAX && maps[slot].text)
		slot++;
	if (slot == MAPS_MAX)
		return NULL;
	static bool handled;
	if (!handled) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, NULL) != 0)
			return NULL;
		handled = true;
	}
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	mem_charge(n);
	size_t np = strlen(path) + 1;
	maps[slot].path = xmalloc(np);
	memcpy(maps[slot].path, path, np);
	maps[slot].len = n;
	maps[slot].text = m;
	return m;
}

void file_free(char *text)
{
	if (!text)
		return;
	for (int i = 0; i < MAPS_MAX; i++) {
		if (maps[i].text == text) {
			maps[i].text = NULL;
			munmap(text, maps[i].len);
			mem_uncharge(maps[i].len);
			free(maps[i].path);
			return;
		}
	}
	char *base = text - HEADER;
	size_t n = ((size_t *)(void *)base)[0];
	mem_uncharge(n);
	if (n >= HUGE_FROM)
		xfree_huge(base, n);
	else
		xfree_big(base, n);
}

static char *buffer_grow(char *buf, size_t n, size_t cap)
{
	char *nb = buffer_new(cap);
	memcpy(nb, buf, n);
	file_free(buf);
	return nb;
}

char *file_read_stream(FILE *f, size_t limit, size_t *len, bool *too_big)
{
	size_t cap = 1 << 16, n = 0;
	struct stat st;
	*too_big = false;
	/* a regular file is read into a buffer of its size, plus one byte to
	 * see EOF without growing (that byte later holds the NUL) */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((size_t)st.st_size > limit) {
			*too_big = true;
			return NULL;
		}
		cap = (size_t)st.st_size + 1;
	}
	char *buf = buffer_new(cap);
	for (;;) {
		if (n == cap) {
			if (cap > limit) {
				*too_big = true;
				file_free(buf);
				return NULL;
			}
			buf = buffer_grow(buf, n, cap * 2);
			cap *= 2;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				int e = errno;
				file_free(buf);
				errno = e ? e : EIO;
				return NULL;
			}
			break;
		}
	}
	if (n > limit) {
		*too_big = true;
		file_free(buf);
		return NULL;
	}
	if (n == cap)
		buf = buffer_grow(buf, n, cap + 1);
	buf[n] = 0;
	*len = n;
	return buf;
}

char *file_read(const char *path, size_t limit, size_t *len, bool *too_big)
{
	*too_big = false;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	bool stated = fstat(fileno(f), &st) == 0;
	if (stated && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	if (stated && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= limit) {
		char *m = map_file(path, fileno(f), (size_t)st.st_size);
		if (m) {
			fclose(f);
			*len = (size_t)st.st_size;
			return m;
		}
	}
	char *text = file_read_stream(f, limit, len, too_big);
	int e = errno;
	fclose(f);
	errno = e;
	return text;
}

/* file_read.c - reading a whole file or stream into memory (file_read.h). */
#include "ptoopt/file_read.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptoopt/arena.h"

/* Kept just in front of the text, for file_free and the SIGBUS handler. */
enum { IN_HEAP, IN_HUGE_PAGES, MAPPED };
typedef struct Header {
	size_t size;         /* of the whole allocation or mapping */
	int kind;
	size_t len;          /* MAPPED: bytes of the file that are mapped */
	const char *name;    /* MAPPED: the path, copied into the first page */
	struct Header *next; /* MAPPED: the other live mappings */
} Header;
#define HEADER ((sizeof(Header) + 15) & ~(size_t)15)

static Header *header_of(char *text) { return (Header *)(void *)(text - HEADER); }

/* From this size on the buffer is made of huge pages even when that rounds
 * it up: reading a 1 MB file into 4 KB pages costs 256 page faults, some
 * 10-20 us each on a virtual machine, against one for a 2 MB page. */
#define HUGE_FROM ((size_t)256 << 10)

/* From this size on a regular file is mapped rather than read.  Its pages
 * are in the page cache already, so mapping them touches no new memory,
 * where reading fills as many fresh pages (on a virtual machine the dearest
 * part of a large round trip) and copies every byte once more. */
#define MAP_FROM HUGE_FROM

static char *buffer_new(size_t cap)
{
	size_t n = cap + HEADER;
	bool huge = n >= HUGE_FROM;
	char *base = huge ? xzalloc_huge(n) : xzalloc_big(n);
	*(Header *)(void *)base = (Header){ .size = n, .kind = huge ? IN_HUGE_PAGES : IN_HEAP };
	return base + HEADER;
}

/* ------------------------------------------------------------ mapped files */

/* A mapped file can shrink while ptoopt runs (another program truncates
 * it), and touching its lost pages raises SIGBUS.  The handler reports it
 * as a read error and exits with 1, after the cleanup hook (the driver's,
 * which removes a half-written output file). */
static Header *volatile mappings;
static void (*volatile truncation_cleanup)(void);

void file_set_truncation_cleanup(void (*cleanup)(void)) { truncation_cleanup = cleanup; }

static void put_err(const char *s) { (void)!write(2, s, strlen(s)); }

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	uintptr_t at = (uintptr_t)si->si_addr;
	for (Header *h = mappings; h; h = h->next) {
		uintptr_t text = (uintptr_t)h + HEADER;
		if (at >= text && at - text < h->len) {
			put_err("ptoopt: error: cannot read '");
			put_err(h->name);
			put_err("': the file shrank while it was being read\n");
			if (truncation_cleanup)
				truncation_cleanup();
			_exit(1);
		}
	}
	/* not a mapped file: the default action happens when the access repeats */
	signal(sig, SIG_DFL);
}

/* The n-byte regular file open as fd, mapped read-only with a NUL after it,
 * or NULL (the caller then reads it).  One anonymous reservation holds a
 * first page (the path and the header, at its end), the file's pages mapped
 * over it, and zeroed memory after: the rest of the file's last page is
 * zero-filled by the kernel, and when the file fills that page exactly the
 * NUL is in the reservation's next page. */
static char *map_file(int fd, size_t n, const char *path)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (n + 1 + page - 1) / page * page;
	size_t total = page + body;
	char *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	char *text = base + page;
	if (mmap(text, n, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0) == MAP_FAILED) {
		munmap(base, total);
		return NULL;
	}
	size_t room = page - HEADER - 1, plen = strlen(path);
	memcpy(base, path, plen < room ? plen : room);
	Header *h = header_of(text);
	*h = (Header){ .size = total, .kind = MAPPED, .len = n, .name = base, .next = mappings };
	static bool handler_set;
	if (!handler_set) {
		struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		handler_set = true;
	}
	mappings = h;
	return text;
}

void file_free(char *text)
{
	if (!text)
		return;
	Header *h = header_of(text);
	switch (h->kind) {
	case MAPPED: {
		Header *volatile *link = &mappings;
		while (*link != h)
			link = &(*link)->next;
		*link = h->next;
		munmap(text - sysconf(_SC_PAGESIZE), h->size);
		break;
	}
	case IN_HUGE_PAGES:
		xfree_huge(h, h->size);
		break;
	default:
		xfree_big(h, h->size);
		break;
	}
}

/* ------------------------------------------------------------ reading */

static char *buffer_grow(char *buf, size_t n, size_t cap)
{
	char *nb = buffer_new(cap);
	memcpy(nb, buf, n);
	file_free(buf);
	return nb;
}

/* As file_read_stream; path (NULL for a stream) lets a large regular file
 * be mapped. */
static char *read_all(FILE *f, const char *path, size_t limit, size_t *len, bool *too_big)
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
		if (path && (size_t)st.st_size >= MAP_FROM) {
			char *text = map_file(fileno(f), (size_t)st.st_size, path);
			if (text) {
				*len = (size_t)st.st_size;
				return text;
			}
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

char *file_read_stream(FILE *f, size_t limit, size_t *len, bool *too_big)
{
	return read_all(f, NULL, limit, len, too_big);
}

char *file_read(const char *path, size_t limit, size_t *len, bool *too_big)
{
	*too_big = false;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	char *text = read_all(f, path, limit, len, too_big);
	int e = errno;
	fclose(f);
	errno = e;
	return text;
}

/* file_read.c - reading a whole file or stream into memory (file_read.h). */
#define _POSIX_C_SOURCE 200809L
#include "ptoopt/file_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptoopt/arena.h"

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

void file_free(char *text)
{
	if (!text)
		return;
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
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	char *text = file_read_stream(f, limit, len, too_big);
	int e = errno;
	fclose(f);
	errno = e;
	return text;
}

/* strbuf.c - growable output buffer (see strbuf.h). */
#include "ptoopt/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"

#include <errno.h>

#define SINK_CHUNK ((size_t)1 << 20)

int sb_flush(StrBuf *b)
{
	if (b->sink && b->len) {
		if (!b->error && fwrite(b->data, 1, b->len, b->sink) != b->len)
			b->error = errno ? errno : EIO;
		b->len = 0;
		b->data[0] = 0;
	}
	return b->error;
}

static void grow(StrBuf *b, size_t extra)
{
	if (b->sink && b->len >= SINK_CHUNK)
		sb_flush(b);
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap < b->len + extra + 1)
		ncap *= 2;
	b->data = xrealloc(b->data, ncap);
	b->cap = ncap;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
	grow(b, n);
	if (n) /* s may be NULL then, and memcpy must not see it */
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void sb_putc(StrBuf *b, char c)
{
	grow(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = 0;
}

void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_printf(StrBuf *b, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		sb_putn(b, small, (size_t)n);
		return;
	}
	grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_indent(StrBuf *b, int n)
{
	grow(b, (size_t)n);
	memset(b->data + b->len, ' ', (size_t)n);
	b->len += (size_t)n;
	b->data[b->len] = 0;
}

void sb_release(StrBuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

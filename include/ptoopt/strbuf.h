/* strbuf.h - a growable byte buffer for building output text. */
#ifndef PTOOPT_STRBUF_H
#define PTOOPT_STRBUF_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct StrBuf {
	char *data;
	size_t len, cap;
	FILE *sink;      /* when set, full chunks are written here as the text grows */
	int error;       /* errno of a failed write to sink, 0 if none */
	size_t flushed;  /* bytes already written to sink: data[0] is byte `flushed` of the text */
	size_t fast_end; /* appends of n bytes stay inline while len + n < fast_end:
	                  * cap, with a sink at most SB_SINK_CHUNK; 0 until the first grow */
} StrBuf;

/* With a sink, text is written out once this much has accumulated.  Small
 * on purpose: the buffer is reused for every chunk, so it stays in the cache,
 * and its pages are faulted in once (a fresh 4 KB page costs ~20 us on the
 * virtual machines we run on; a 1 MB buffer grown by realloc cost hundreds). */
#define SB_SINK_CHUNK ((size_t)64 << 10)

/* Out of line: grow (or flush to the sink), then append. */
void sb_putn_slow(StrBuf *b, const char *s, size_t n);
void sb_putc_slow(StrBuf *b, char c);

/* The printer appends a few bytes at a time: inline when they fit (one
 * comparison: fast_end <= cap keeps room for the NUL). */
static inline int sb_fits_(const StrBuf *b, size_t n)
{
	return b->len + n < b->fast_end;
}

/* Appends for the printer's hot path: without the NUL after the text (a
 * store per append).  Whoever uses them calls sb_terminate() before the text
 * is read as a string; every other function here keeps data NUL-terminated. */
static inline void sb_add(StrBuf *b, const char *s, size_t n)
{
	if (!sb_fits_(b, n)) {
		sb_putn_slow(b, s, n);
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static inline void sb_addc(StrBuf *b, char c)
{
	if (!sb_fits_(b, 1)) {
		sb_putc_slow(b, c);
		return;
	}
	b->data[b->len++] = c;
}

static inline void sb_adds(StrBuf *b, const char *s) { sb_add(b, s, strlen(s)); }

/* The same, NUL-terminated (the slow paths terminate already; a fitting
 * append leaves room for the NUL). */
static inline void sb_putn(StrBuf *b, const char *s, size_t n)
{
	sb_add(b, s, n);
	b->data[b->len] = 0;
}

static inline void sb_putc(StrBuf *b, char c)
{
	sb_addc(b, c);
	b->data[b->len] = 0;
}

static inline void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_add_int(StrBuf *b, long long v); /* sb_put_int without the NUL */

static inline void sb_terminate(StrBuf *b)
{
	if (b->data)
		b->data[b->len] = 0; /* len < cap always holds once data exists */
}
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_put_int(StrBuf *b, long long v); /* decimal */
void sb_indent(StrBuf *b, int n); /* n spaces */
void sb_release(StrBuf *b);
/* Room for n more bytes without regrowth (a text whose size is known). */
void sb_reserve(StrBuf *b, size_t n);
/* Write what is buffered to the sink (no-op without one); returns 0 or an errno. */
int sb_flush(StrBuf *b);

#endif

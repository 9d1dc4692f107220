/* strbuf.h - a growable byte buffer for building output text. */
#ifndef PTOOPT_STRBUF_H
#define PTOOPT_STRBUF_H

#include <stddef.h>
#include <stdio.h>

typedef struct StrBuf {
	char *data;
	size_t len, cap;
	FILE *sink;      /* when set, full chunks are written here as the text grows */
	int error;       /* errno of a failed write to sink, 0 if none */
} StrBuf;

void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_indent(StrBuf *b, int n); /* n spaces */
void sb_release(StrBuf *b);
/* Write what is buffered to the sink (no-op without one); returns 0 or an errno. */
int sb_flush(StrBuf *b);

#endif

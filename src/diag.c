/* diag.c - located diagnostics with the offending source line and a caret. */
#include "ptoopt/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void diag_init(Diag *d, const char *file, const char *src, size_t len)
{
	memset(d, 0, sizeof *d);
	d->file = file;
	d->src = src;
	d->len = len;
	d->first_line = 1;
	d->out = stderr;
}

/* Print source line `line` and a caret under column `col`.  Bytes other
 * than printable ASCII are shown as '?' so that a hostile input cannot
 * garble the terminal. */
static void show_line(Diag *d, int line, int col)
{
	if (!d->src || line <= 0 || line < d->first_line)
		return;
	const char *p = d->src, *end = d->src + d->len;
	for (int l = d->first_line; l < line && p < end; p++)
		if (*p == '\n')
			l++;
	if (p >= end && line > d->first_line && !(p == end && p[-1] == '\n'))
		return;
	const char *e = p;
	while (e < end && *e != '\n' && *e != '\r')
		e++;
	/* One huge line would flood the terminal: show at most 400 bytes of
	 * it, a window around the caret (marked "...") when that is far in. */
	size_t skip = col > 300 ? (size_t)col - 200 : 0;
	if (skip > (size_t)(e - p))
		skip = (size_t)(e - p);
	p += skip;
	col -= (int)skip;
	size_t n = (size_t)(e - p);
	if (n > 400)
		n = 400;
	fputs(skip ? "  ..." : "  ", d->out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		/* bytes outside printable ASCII (control bytes, and anything of 0x80
		 * up, which a terminal may take as an escape) are shown as '?' */
		fputc(c == '\t' ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : c, d->out);
	}
	fputs(skip ? "\n     " : "\n  ", d->out);
	for (int i = 1; i < col && (size_t)i <= n; i++)
		fputc(' ', d->out);
	fputs("^\n", d->out);
}

static void report(Diag *d, const char *kind, int line, int col, const char *fmt, va_list ap)
{
	if (d->sink) {
		char msg[2048];
		vsnprintf(msg, sizeof msg, fmt, ap);
		d->sink(d->sink_ctx, kind, line, line > 0 && col <= 0 ? 1 : col, msg);
		return;
	}
	if (line > 0)
		fprintf(d->out, "%s:%d:%d: %s: ", d->file, line, col > 0 ? col : 1, kind);
	else
		fprintf(d->out, "%s: %s: ", d->file, kind);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	show_line(d, line, col);
}

void diag_error(Diag *d, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, "error", line, col, fmt, ap);
	va_end(ap);
	d->nerrors++;
}

void diag_note(Diag *d, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, "note", line, col, fmt, ap);
	va_end(ap);
}

void diag_warning(Diag *d, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, "warning", line, col, fmt, ap);
	va_end(ap);
}

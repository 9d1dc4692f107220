/* strbuf.c - growable output buffer (see strbuf.h). */
#include "ptoopt/strbuf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"

#include <errno.h>


int sb_flush(StrBuf *b)
{
	if (b->sink && b->len) {
		if (!b->error && fwrite(b->data, 1, b->len, b->sink) != b->len)
			b->error = errno ? errno : EIO;
		b->flushed += b->len;
		b->len = 0;
		b->data[0] = 0;
	}
	return b->error;
}

static void grow(StrBuf *b, size_t extra)
{
	if (b->sink && b->len >= SB_SINK_CHUNK)
		sb_flush(b);
	if (b->len + extra + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		while (ncap < b->len + extra + 1)
			ncap *= 2;
		mem_charge(ncap - b->cap); /* an output held whole counts against the limit */
		b->data = xrealloc(b->data, ncap);
		b->cap = ncap;
	}
	/* the sink may have been set since the last grow */
	b->fast_end = b->sink && b->cap > SB_SINK_CHUNK ? SB_SINK_CHUNK : b->cap;
}

void sb_reserve(StrBuf *b, size_t n) { grow(b, n); }

void sb_putn_slow(StrBuf *b, const char *s, size_t n)
{
	grow(b, n);
	if (n) /* s may be NULL then, and memcpy must not see it */
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void sb_putc_slow(StrBuf *b, char c)
{
	grow(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = 0;
}

/* "00" "01" ... "99": two digits per division */
static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void sb_add_int(StrBuf *b, long long v)
{
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	/* comparisons, not divisions: most numbers are short */
	size_t n = v < 0;
	if (u < 100)
		n += 1 + (u >= 10);
	else if (u < 10000)
		n += 3 + (u >= 1000);
	else
		for (unsigned long long x = u; x; x /= 10)
			n++;
	if (!sb_fits_(b, n))
		grow(b, n);
	/* the digits go straight into the buffer, last first */
	char *q = b->data + b->len + n;
	while (u >= 100) {
		q -= 2;
		memcpy(q, two_digits + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, two_digits + 2 * u, 2);
	} else {
		*--q = (char)('0' + u);
	}
	if (v < 0)
		*--q = '-';
	b->len += n;
}

void sb_put_int(StrBuf *b, long long v)
{
	sb_add_int(b, v);
	b->data[b->len] = 0;
}

/* The conversions the quick path formats itself: %s %c %d %ld %lld %%
 * without flags, width or precision.  Returns false for anything else. */
static bool quick_format(const char *f)
{
	/* byte loops, not strchr: the formats are a few bytes long */
	for (;;) {
		while (*f && *f != '%')
			f++;
		if (!*f)
			break;
		f++;
		if (*f == 'l')
			f += f[1] == 'l' ? 2 : 1;
		if (*f != 's' && *f != 'c' && *f != 'd' && *f != '%')
			return false;
		if (*f != 'd' && f[-1] == 'l')
			return false;
		f++;
	}
	return true;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (quick_format(fmt)) {
		/* the printer's formats are names and integers: no vsnprintf */
		const char *f = fmt;
		for (;;) {
			const char *pct = f;
			while (*pct && *pct != '%')
				pct++;
			if (pct > f)
				sb_putn(b, f, (size_t)(pct - f));
			if (!*pct)
				break;
			f = pct + 1;
			int longs = 0;
			while (*f == 'l') {
				longs++;
				f++;
			}
			switch (*f++) {
			case 's': {
				const char *s = va_arg(ap, const char *);
				sb_puts(b, s ? s : "(null)");
				break;
			}
			case 'c': sb_putc(b, (char)va_arg(ap, int)); break;
			case '%': sb_putc(b, '%'); break;
			default: /* 'd' */
				sb_put_int(b, longs == 0 ? va_arg(ap, int) : longs == 1 ? va_arg(ap, long) : va_arg(ap, long long));
				break;
			}
		}
		va_end(ap);
		return;
	}
	char small[128];
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
	if (!sb_fits_(b, (size_t)n))
		grow(b, (size_t)n);
	memset(b->data + b->len, ' ', (size_t)n);
	b->len += (size_t)n;
	b->data[b->len] = 0;
}

void sb_release(StrBuf *b)
{
	mem_uncharge(b->cap);
	free(b->data);
	b->data = NULL;
	b->len = b->cap = b->fast_end = 0;
}

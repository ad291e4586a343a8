/*
 * kernel/err.c: names for the error codes of kernel/err.h, and err_vfmt(), the small formatter
 * that parsers use to write human messages. It runs before newlib's stdio is usable (and in
 * freestanding code that must not depend on it), so it takes no locks and allocates nothing.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * err_vfmt is not in err.h (that header is not this module's to edit yet); its users declare
 * this prototype themselves until it moves there.
 */
void err_vfmt(char *buf, size_t len, const char *fmt, va_list ap);

const char *err_name(int err)
{
    switch (err) {
    case WS_OK:
        return "OK";
    case WS_ERR_GENERIC:
        return "EGENERIC";
    case WS_ERR_INVAL:
        return "EINVAL";
    case WS_ERR_NOT_FOUND:
        return "ENOTFOUND";
    case WS_ERR_CHECKSUM:
        return "ECHECKSUM";
    case WS_ERR_TRUNCATED:
        return "ETRUNCATED";
    case WS_ERR_NO_MEMORY:
        return "ENOMEM";
    case WS_ERR_TIMEDOUT:
        return "ETIMEDOUT";
    case WS_ERR_NOSYS:
        return "ENOSYS";
    case WS_ERR_RANGE:
        return "ERANGE";
    case WS_ERR_DEVICE:
        return "EDEVICE";
    default:
        return "EUNKNOWN";
    }
}

/* Output cursor: always leaves room for the terminating NUL, silently truncates. */
struct err_out {
    char *buf;
    size_t len;
    size_t pos;
};

static void err_putc(struct err_out *o, char c)
{
    if (o->pos + 1 < o->len) {
        o->buf[o->pos++] = c;
    }
}

static void err_puts(struct err_out *o, const char *s)
{
    if (s == NULL) {
        s = "(null)";
    }
    while (*s != '\0') {
        err_putc(o, *s++);
    }
}

static void err_putu(struct err_out *o, unsigned long long v, unsigned base)
{
    char digits[24]; /* 2^64 has 20 decimal digits, 16 hex */
    size_t n = 0;

    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    while (n > 0) {
        err_putc(o, digits[--n]);
    }
}

/* Fetches one integer argument of the size the length modifier says (0: int, 1: long, 2: ll). */
static unsigned long long err_arg_u(va_list *ap, int size, bool is_signed, bool *neg)
{
    long long s;

    *neg = false;
    if (!is_signed) {
        if (size == 2) {
            return va_arg(*ap, unsigned long long);
        }
        return size == 1 ? va_arg(*ap, unsigned long) : va_arg(*ap, unsigned int);
    }
    s = size == 2 ? va_arg(*ap, long long) : size == 1 ? va_arg(*ap, long) : va_arg(*ap, int);
    if (s < 0) {
        *neg = true;
        return 0ULL - (unsigned long long)s; /* well defined even for LLONG_MIN */
    }
    return (unsigned long long)s;
}

/* Formats one conversion starting after '%'; returns the format position after it. */
static const char *err_conv(struct err_out *o, const char *f, va_list *ap)
{
    int size = 0;
    bool neg;
    unsigned long long v;

    if (*f == 'z') { /* size_t is unsigned long on every target we build for */
        size = 1;
        f++;
    }
    while (*f == 'l' && size < 2) {
        size++;
        f++;
    }
    switch (*f) {
    case 'd':
    case 'u':
    case 'x':
        v = err_arg_u(ap, size, *f == 'd', &neg);
        if (neg) {
            err_putc(o, '-');
        }
        err_putu(o, v, *f == 'x' ? 16 : 10);
        break;
    case 's':
        err_puts(o, va_arg(*ap, const char *));
        break;
    case 'c':
        err_putc(o, (char)va_arg(*ap, int));
        break;
    case '%':
        err_putc(o, '%');
        break;
    default: /* unsupported conversion: show it rather than guess at the argument */
        err_putc(o, '?');
        return *f == '\0' ? f : f + 1;
    }
    return f + 1;
}

/*
 * err_vfmt: printf-like formatting into buf[len], always NUL-terminated when len > 0, silently
 * truncated. Supports %s %c %d %u %x with the l, ll and z modifiers, and %%; no width or flags.
 * Every target is LP64, so uint64_t prints with %lx/%lu and size_t with %zu. Callers declare
 * their variadic wrappers with format(printf) so the compiler checks the arguments.
 * Any context; no locks, no allocation.
 */
void err_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
    struct err_out o = { buf, len, 0 };
    va_list aq;

    if (buf == NULL || len == 0) {
        return;
    }
    va_copy(aq, ap);
    while (*fmt != '\0') {
        if (*fmt != '%') {
            err_putc(&o, *fmt++);
            continue;
        }
        fmt = err_conv(&o, fmt + 1, &aq);
    }
    va_end(aq);
    buf[o.pos] = '\0';
}

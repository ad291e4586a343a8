/* apps/stats/json.c: JSON writer (see header). */
#include "json.h"

static void jw_putc(struct jw *w, char c)
{
    if (w->len + 1 >= w->cap) {
        w->overflow = true; /* keep one byte for the terminating NUL */
        return;
    }
    w->buf[w->len++] = c;
    w->buf[w->len] = '\0';
}

static void jw_puts(struct jw *w, const char *s)
{
    while (*s != '\0' && !w->overflow) {
        jw_putc(w, *s++);
    }
}

static void jw_put_string(struct jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    jw_putc(w, '"');
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            jw_putc(w, '\\');
            jw_putc(w, (char)c);
        } else if (c < 0x20) {
            jw_puts(w, "\\u00");
            jw_putc(w, hex[c >> 4]);
            jw_putc(w, hex[c & 15]);
        } else {
            jw_putc(w, (char)c);
        }
    }
    jw_putc(w, '"');
}

/* jw_member: the comma and "key": that precede every value. */
static void jw_member(struct jw *w, const char *key)
{
    if (w->depth > 0) {
        if (!w->first[w->depth - 1]) {
            jw_putc(w, ',');
        }
        w->first[w->depth - 1] = false;
    }
    if (key != NULL) {
        jw_put_string(w, key);
        jw_putc(w, ':');
    }
}

void jw_init(struct jw *w, char *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->overflow = cap == 0;
    w->depth = 0;
    if (cap > 0) {
        buf[0] = '\0';
    }
}

static void jw_open(struct jw *w, const char *key, char c)
{
    jw_member(w, key);
    jw_putc(w, c);
    if (w->depth == JW_MAX_DEPTH) {
        w->overflow = true;
        return;
    }
    w->first[w->depth++] = true;
}

static void jw_close(struct jw *w, char c)
{
    if (w->depth == 0) {
        w->overflow = true;
        return;
    }
    w->depth--;
    jw_putc(w, c);
}

void jw_begin_object(struct jw *w, const char *key)
{
    jw_open(w, key, '{');
}

void jw_end_object(struct jw *w)
{
    jw_close(w, '}');
}

void jw_begin_array(struct jw *w, const char *key)
{
    jw_open(w, key, '[');
}

void jw_end_array(struct jw *w)
{
    jw_close(w, ']');
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
    char digits[20];
    int n = 0;
    jw_member(w, key);
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) {
        jw_putc(w, digits[--n]);
    }
}

void jw_bool(struct jw *w, const char *key, bool v)
{
    jw_member(w, key);
    jw_puts(w, v ? "true" : "false");
}

void jw_str(struct jw *w, const char *key, const char *s)
{
    jw_member(w, key);
    jw_put_string(w, s);
}

bool jw_ok(const struct jw *w)
{
    return !w->overflow && w->depth == 0;
}

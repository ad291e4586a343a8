/*
 * apps/stats/json.h: a small JSON writer into a fixed buffer, for `stats json` (RFC 8259). It
 * never writes past the buffer: on overflow it stops and jw_ok() turns false, so the caller
 * prints an error instead of a truncated, invalid line. Pure code: host-tested.
 */
#ifndef WS_STATS_JSON_H
#define WS_STATS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JW_MAX_DEPTH 8

struct jw {
    char *buf;
    size_t cap, len;
    bool overflow;
    unsigned depth;
    bool first[JW_MAX_DEPTH]; /* no member written yet at this depth */
};

void jw_init(struct jw *w, char *buf, size_t cap);
/* key is NULL inside an array (and for the top-level value). */
void jw_begin_object(struct jw *w, const char *key);
void jw_end_object(struct jw *w);
void jw_begin_array(struct jw *w, const char *key);
void jw_end_array(struct jw *w);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_str(struct jw *w, const char *key, const char *s); /* escaped per RFC 8259 section 7 */
/* jw_ok: no overflow and every object/array closed. */
bool jw_ok(const struct jw *w);

#endif

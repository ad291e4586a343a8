/*
 * tests/fuzz/fuzz_config.c: libFuzzer harness for the configuration generator's parser
 * (config/confparse.c, confkeys.c, confvalue.c) and header emitter (confemit.c). The input is
 * a configuration file; it is parsed from an exactly-sized heap copy (conf_parse takes text
 * that is not NUL-terminated, so ASan sees any read past its end), and if it is valid, the
 * header is written into a memory stream.
 *
 * The file name is "fuzz.conf" unless the first line is a comment "# file: <name>": then that
 * name (the default of `name` comes from it: long names, no ".conf", directories).
 *
 * Invariants: no crash or sanitizer report; conf_parse returns 0 exactly when no error was
 * recorded or dropped; errors are at most CONF_MAX_ERRORS, sorted by line with line 0 last,
 * each on a line of the input (1 .. its line count) or 0, naming the file, with a terminated,
 * non-empty message; a valid file has every key present unless it may stay unset, and at most
 * CONF_MAX_ROUTES routes, each on a line of the input; its IPv6 port prefixes do not overlap,
 * each route6 has no host bits and leaves by a port with an address6, and a port advertises
 * (advertise6 yes) only with an address6 in router mode; its header is written
 * without error, is the same when written twice, and ends in a newline.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/confparse.h"
#include "tests/fuzz/fuzz.h"

#define FCFG_FILE "fuzz.conf"

/* The lines conf_parse sees: one per '\n', plus a last one without it. */
static unsigned fcfg_lines(const uint8_t *text, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++) {
        n += text[i] == '\n';
    }
    return n + (len != 0 && text[len - 1] != '\n');
}

/* The file name: from a first line "# file: <name>", else FCFG_FILE. Caller frees. */
static char *fcfg_file_name(const uint8_t *text, size_t len)
{
    static const char tag[] = "# file: ";
    const size_t tag_len = sizeof(tag) - 1;
    size_t n = 0;

    if (len >= tag_len && memcmp(text, tag, tag_len) == 0) {
        while (tag_len + n < len && n < 512 && text[tag_len + n] != '\n' &&
               text[tag_len + n] != '\r') {
            n++;
        }
        char *name = (char *)fuzz_alloc_copy(text + tag_len, n + 1, n);
        name[n] = '\0';
        return name;
    }
    return (char *)fuzz_alloc_copy((const uint8_t *)FCFG_FILE, sizeof(FCFG_FILE),
                                   sizeof(FCFG_FILE));
}

static void fcfg_check_errors(const struct conf_errors *errs, unsigned lines, const char *file)
{
    FUZZ_CHECK(errs->count <= CONF_MAX_ERRORS);
    FUZZ_CHECK(errs->dropped == 0 || errs->count == CONF_MAX_ERRORS);
    unsigned prev = 1;
    for (unsigned i = 0; i < errs->count; i++) {
        const struct conf_error *e = &errs->list[i];
        unsigned rank = e->line == 0 ? ~0u : e->line;
        FUZZ_CHECK(e->line <= lines);
        FUZZ_CHECK(rank >= prev); /* sorted, line 0 last */
        prev = rank;
        FUZZ_CHECK(e->file == file);
        size_t n = strnlen(e->msg, sizeof(e->msg));
        FUZZ_CHECK(n > 0 && n < sizeof(e->msg));
    }
}

/* The header of a valid parse, as a malloc'd string (caller frees). */
static char *fcfg_emit(const struct conf_values *v, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    if (f == NULL) {
        abort();
    }
    FUZZ_CHECK(conf_emit_header(v, f) == 0);
    FUZZ_CHECK(fclose(f) == 0);
    return out;
}

/* a and b (CONF_IPV6_BYTES) agree in their first len bits. */
static bool fcfg_same_prefix6(const uint8_t *a, const uint8_t *b, unsigned len)
{
    for (unsigned bit = 0; bit < len; bit++) {
        if (((a[bit / 8] ^ b[bit / 8]) & (0x80 >> (bit % 8))) != 0) {
            return false;
        }
    }
    return true;
}

/* The IPv6 results: port prefixes apart, route6 lines well-formed and on an IPv6 port. */
static void fcfg_check_ipv6(const struct conf_values *v, unsigned lines)
{
    static const uint8_t zero[CONF_IPV6_BYTES];
    const struct conf_value *a6[CONF_PORT_COUNT];

    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        snprintf(key, sizeof(key), "port%u.address6", n);
        a6[n] = conf_get(v, key);
        FUZZ_CHECK(a6[n] != NULL);
        if (!a6[n]->present) {
            FUZZ_CHECK(memcmp(a6[n]->ip6, zero, sizeof(zero)) == 0 && a6[n]->prefix == 0);
            continue;
        }
        FUZZ_CHECK(a6[n]->prefix >= 16 && a6[n]->prefix <= 128);
        FUZZ_CHECK(a6[n]->ip6[0] != 0xff); /* never multicast */
        for (unsigned m = 0; m < n; m++) {
            unsigned len = a6[n]->prefix < a6[m]->prefix ? a6[n]->prefix : a6[m]->prefix;
            FUZZ_CHECK(!a6[m]->present || !fcfg_same_prefix6(a6[n]->ip6, a6[m]->ip6, len));
        }
    }
    const struct conf_value *mode = conf_get(v, "mode");
    FUZZ_CHECK(mode != NULL && mode->present);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        snprintf(key, sizeof(key), "port%u.advertise6", n);
        const struct conf_value *adv = conf_get(v, key);
        FUZZ_CHECK(adv != NULL && adv->present && (adv->num == 0 || adv->num == 1));
        FUZZ_CHECK(adv->num == 0 || (a6[n]->present && strcmp(mode->text, "router") == 0));
    }
    FUZZ_CHECK(v->nroutes6 <= CONF_MAX_ROUTES6);
    for (unsigned i = 0; i < v->nroutes6; i++) {
        const struct conf_route6 *r = &v->routes6[i];
        FUZZ_CHECK(r->line >= 1 && r->line <= lines && r->len <= 128);
        FUZZ_CHECK(r->iface < CONF_PORT_COUNT && a6[r->iface]->present);
        FUZZ_CHECK(r->via || r->dev);
        FUZZ_CHECK(r->via || memcmp(r->gateway, zero, sizeof(zero)) == 0);
        FUZZ_CHECK(!r->dev || r->iface == r->dev_port);
        for (unsigned bit = r->len; bit < 128; bit++) { /* no host bits */
            FUZZ_CHECK((r->prefix[bit / 8] & (0x80 >> (bit % 8))) == 0);
        }
        for (unsigned j = 0; j < i; j++) { /* one route per prefix/len */
            FUZZ_CHECK(v->routes6[j].len != r->len ||
                       memcmp(v->routes6[j].prefix, r->prefix, CONF_IPV6_BYTES) != 0);
        }
    }
}

static void fcfg_check_valid(const struct conf_values *v, unsigned lines)
{
    FUZZ_CHECK(v->nroutes <= CONF_MAX_ROUTES);
    for (unsigned i = 0; i < v->nroutes; i++) {
        FUZZ_CHECK(v->routes[i].line >= 1 && v->routes[i].line <= lines);
        FUZZ_CHECK(v->routes[i].len <= 32);
        /* a port, or a VLAN line's interface (CONF_PORT_COUNT + j, j < nvlans) */
        FUZZ_CHECK(v->routes[i].iface < CONF_PORT_COUNT + v->nvlans);
    }
    FUZZ_CHECK(v->nneighs <= CONF_MAX_NEIGHS && v->nvlans <= CONF_MAX_VLANS);
    for (unsigned i = 0; i < v->nneighs; i++) {
        FUZZ_CHECK(v->neighs[i].iface < CONF_PORT_COUNT + v->nvlans);
    }
    for (unsigned i = 0; i < v->nvlans; i++) {
        const struct conf_vlan *a = &v->vlans[i];
        FUZZ_CHECK(a->port < CONF_PORT_COUNT && a->vid >= 1 && a->vid <= 4094);
        FUZZ_CHECK(a->line >= 1 && a->line <= lines && a->prefix >= 8 && a->prefix <= 30);
        for (unsigned j = 0; j < i; j++) { /* one per (port, VID), subnets apart */
            const struct conf_vlan *b = &v->vlans[j];
            unsigned len = a->prefix < b->prefix ? a->prefix : b->prefix;
            FUZZ_CHECK(a->port != b->port || a->vid != b->vid);
            FUZZ_CHECK(((a->ip ^ b->ip) >> (32 - len)) != 0);
        }
    }
    for (size_t i = 0; i < conf_key_count; i++) {
        const struct conf_value *val = &v->val[i];
        FUZZ_CHECK(val->line <= lines);
        FUZZ_CHECK(val->present || conf_keys[i].no_default);
        FUZZ_CHECK(strnlen(val->text, sizeof(val->text)) < sizeof(val->text));
    }
    fcfg_check_ipv6(v, lines);

    size_t len1 = 0, len2 = 0;
    char *h1 = fcfg_emit(v, &len1);
    char *h2 = fcfg_emit(v, &len2);
    FUZZ_CHECK(len1 > 0 && len1 == len2 && memcmp(h1, h2, len1) == 0);
    FUZZ_CHECK(h1[len1 - 1] == '\n');
    FUZZ_CHECK(strlen(h1) == len1); /* no NUL inside the header */
    free(h2);
    free(h1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = (char *)fuzz_alloc_copy(data, size, size);
    struct conf_values *v = malloc(sizeof(*v));
    struct conf_errors *errs = malloc(sizeof(*errs));
    if (v == NULL || errs == NULL) {
        abort();
    }
    /* Garbage, so that a field conf_parse forgets to set shows up in the checks. */
    memset(v, 0xa5, sizeof(*v));
    memset(errs, 0xa5, sizeof(*errs));

    char *file = fcfg_file_name(data, size);
    int rc = conf_parse(file, text, size, v, errs);
    unsigned lines = fcfg_lines(data, size);

    FUZZ_CHECK((rc == 0) == (errs->count + errs->dropped == 0));
    FUZZ_CHECK(rc == 0 || rc < 0);
    FUZZ_CHECK(v->file_name == file);
    fcfg_check_errors(errs, lines, file);
    if (rc == 0) {
        fcfg_check_valid(v, lines);
    }

    free(errs);
    free(v);
    free(file);
    free(text);
    return 0;
}

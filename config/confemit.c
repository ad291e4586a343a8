/* config/confemit.c: the two outputs of a parse: the C header of CONFIG_* macros (genconfig's
 * product, included by the firmware) and the key reference table of docs/config.md.
 * Host code, built into genconfig and the unit tests. */
#include "confpriv.h"

#include <inttypes.h>
#include <string.h>

/* Relative path so that both genconfig (-Iconfig only) and the unit tests find it. */
#include "../kernel/err.h"

/* The count emitted next to the route row's initializer (whose name is that row's macro). */
#define CONF_NROUTES_MACRO "CONFIG_NROUTES"
#define CONF_NROUTES6_MACRO "CONFIG_NROUTES6"
#define CONF_NNEIGHS_MACRO "CONFIG_NSTATIC_NEIGHS"
#define CONF_NVLANS_MACRO "CONFIG_NVLANS"

/* Print text for use inside a C comment: "*" + "/" is broken up, non-printables become '?'. */
static void conf_put_comment_text(FILE *f, const char *text)
{
    for (const char *s = text; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;

        fputc(c < 0x20 || c >= 0x7f ? '?' : c, f);
        if (c == '*' && s[1] == '/') {
            fputc(' ', f);
        }
    }
}

/* Print text as a C block comment, wrapped at word boundaries to fit in 100 columns. */
static void conf_put_comment(FILE *f, const char *text)
{
    size_t col = 2; /* just after the opening slash-star */

    fputs("/*", f);
    while (*text != '\0') {
        size_t word = strcspn(text, " ");
        char buf[CONF_MSG_BYTES];

        /* +1 for the space before the word, +3 for a closing " * /" */
        if (col > 2 && col + 1 + word + 3 > 100) {
            fputs("\n *", f);
            col = 2;
        }
        snprintf(buf, sizeof(buf), " %.*s", (int)word, text);
        conf_put_comment_text(f, buf);
        col += 1 + word;
        text += word;
        text += strspn(text, " ");
    }
    fputs(" */\n", f);
}

/* The macro of one choice of a one_hot enum: <macro>_<WORD>, the word upper-cased. */
static void conf_one_hot_macro(char *buf, size_t size, const struct conf_key *k,
                               const struct conf_choice *c)
{
    size_t n;

    snprintf(buf, size, "%s_%s", k->macro, c->word);
    for (n = strlen(k->macro) + 1; buf[n] != '\0'; n++) {
        if (buf[n] >= 'a' && buf[n] <= 'z') {
            buf[n] = (char)(buf[n] - 'a' + 'A');
        }
    }
}

/* Print 6 bytes as a C initializer: { 0xaa, 0xbb, ... }. */
static void conf_put_mac(FILE *f, const uint8_t *mac)
{
    fputs("{ ", f);
    for (size_t i = 0; i < CONF_MAC_BYTES; i++) {
        fprintf(f, "0x%02x%s", mac[i], i + 1 < CONF_MAC_BYTES ? ", " : " }");
    }
}

/*
 * Print 16 bytes as a C initializer in two rows of 8: { 0x20, 0x01, ..., \ then, on the next
 * line, the other 8 under the first ones and " }". col: the column of the '{' (so a 16-byte
 * array fits in 100 columns wherever it starts).
 */
static void conf_put_ipv6_bytes(FILE *f, const uint8_t *a, int col)
{
    fputs("{ ", f);
    for (size_t i = 0; i < CONF_IPV6_BYTES; i++) {
        fprintf(f, "0x%02x", a[i]);
        if (i == CONF_IPV6_BYTES / 2 - 1) {
            fprintf(f, ", \\\n%*s", col + 2, "");
        } else if (i + 1 < CONF_IPV6_BYTES) {
            fputs(", ", f);
        }
    }
    fputs(" }", f);
}

/* Print the macros of one key whose type has more than one (or another shape than a number). */
static void conf_put_define_special(FILE *f, const struct conf_key *k,
                                    const struct conf_value *val)
{
    char name[CONF_MSG_BYTES];
    int col;

    switch (k->type) {
    case CONF_IPV4_PREFIX:
        fprintf(f, "#define %s_HAS_ADDRESS %d\n", k->macro, val->present ? 1 : 0);
        fprintf(f, "#define %s_IP 0x%08" PRIx32 "u\n", k->macro, val->ip);
        fprintf(f, "#define %s_PREFIX %u\n\n", k->macro, val->prefix);
        break;
    case CONF_IPV6_PREFIX:
        fprintf(f, "#define %s_HAS_ADDRESS6 %d\n", k->macro, val->present ? 1 : 0);
        col = fprintf(f, "#define %s_ADDRESS6 ", k->macro);
        conf_put_ipv6_bytes(f, val->ip6, col < 0 ? 0 : col);
        fprintf(f, "\n#define %s_PREFIX6 %u\n\n", k->macro, val->prefix);
        break;
    case CONF_MAC:
        fprintf(f, "#define %s_HAS_MAC %d\n", k->macro, val->present ? 1 : 0);
        fprintf(f, "#define %s_MAC ", k->macro);
        conf_put_mac(f, val->mac);
        fputs("\n\n", f);
        break;
    case CONF_PCI_ADDR:
        fprintf(f, "#define %s_HAS_PCI %d\n", k->macro, val->present ? 1 : 0);
        fprintf(f, "#define %s_PCI 0x%06" PRIx64 "\n\n", k->macro, val->present ? val->num : 0);
        break;
    case CONF_PORT_PAIRS:
        fprintf(f, "#define %s ", k->macro);
        for (size_t n = 0; n < CONF_PORT_COUNT; n++) {
            fprintf(f, "%s%d", n == 0 ? "{ " : ", ", val->peer[n]);
        }
        fputs(" }\n\n", f);
        break;
    case CONF_ENUM: /* one_hot */
        for (size_t i = 0; i < CONF_MAX_CHOICES && k->choices[i].word != NULL; i++) {
            conf_one_hot_macro(name, sizeof(name), k, &k->choices[i]);
            fprintf(f, "#define %s %d\n", name, val->num == k->choices[i].num ? 1 : 0);
        }
        fputs("\n", f);
        break;
    default:
        fprintf(f, "#error \"%s: no emitter for its type\"\n\n", k->name);
        break;
    }
}

/* Print one key's comment and #define (more for the types conf_put_define_special handles). */
static void conf_put_define(FILE *f, const struct conf_key *k, const struct conf_value *val)
{
    /* key and value (each at most a line), the doc, and the words around them */
    char origin[2 * CONF_LINE_MAX_BYTES + CONF_DOC_MAX_BYTES + 64] = "";

    if (val->line != 0) {
        conf_append(origin, sizeof(origin), "%s = %s (line %u). %s", k->name, val->text,
                    val->line, k->doc);
    } else if (val->present) {
        conf_append(origin, sizeof(origin), "%s = %s (default). %s", k->name, val->text, k->doc);
    } else {
        conf_append(origin, sizeof(origin), "%s not set (no default). %s", k->name, k->doc);
    }
    conf_put_comment(f, origin);
    if (k->type != CONF_STRING && k->type != CONF_INT && k->type != CONF_BOOL &&
        (k->type != CONF_ENUM || k->one_hot)) {
        conf_put_define_special(f, k, val);
        return;
    }
    fprintf(f, "#define %s ", k->macro);
    if (k->type == CONF_STRING) {
        fputc('"', f);
        for (const char *s = val->text; *s != '\0'; s++) {
            fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
        }
        fputs("\"\n\n", f);
    } else if (k->hex) {
        fprintf(f, "0x%" PRIx64 "\n\n", val->num);
    } else {
        fprintf(f, "%" PRId64 "\n\n", val->num);
    }
}

/* conf_iface_name: "portN" for interface N < CONF_PORT_COUNT, "portN.VID" for a vlan line's. */
static const char *conf_iface_name(const struct conf_values *v, unsigned iface, char buf[24])
{
    if (iface < CONF_PORT_COUNT || iface - CONF_PORT_COUNT >= v->nvlans) {
        snprintf(buf, 24, "port%u", iface);
    } else {
        const struct conf_vlan *e = &v->vlans[iface - CONF_PORT_COUNT];
        snprintf(buf, 24, "port%u.%u", e->port, e->vid);
    }
    return buf;
}

/*
 * Print CONF_NROUTES_MACRO and the route row's initializer: { prefix, len, gateway, iface } per
 * route in file order (iface: a port 0..3, or 4 + j for the j-th vlan line), any struct with
 * those members first taking it. An empty initializer is not C (before C23), so no routes gives
 * one all-zero placeholder entry: loop to the count.
 */
static void conf_put_routes(FILE *f, const struct conf_key *k, const struct conf_values *v)
{
    char origin[CONF_DOC_MAX_BYTES + 64] = "";
    char route[CONF_ROUTE_STR_BYTES];
    unsigned n = v->nroutes;

    if (n == 0) {
        conf_append(origin, sizeof(origin), "%s: no lines. %s", k->name, k->doc);
    } else {
        conf_append(origin, sizeof(origin), "%s: %u line%s. %s", k->name, n, n == 1 ? "" : "s",
                    k->doc);
    }
    conf_put_comment(f, origin);
    fprintf(f, "#define %s %u\n", CONF_NROUTES_MACRO, n);
    if (n == 0) {
        fputs("/* No routes: one all-zero placeholder entry, as an initializer may not be empty; "
              "loop to\n * " CONF_NROUTES_MACRO ", never to the array's size. */\n", f);
        fprintf(f, "#define %s \\\n    { { 0x00000000u, 0, 0x00000000u, 0 } }\n\n", k->macro);
        return;
    }
    fputs("/* { prefix, len, gateway (0: dev), iface } per route, in file order:", f);
    for (unsigned i = 0; i < n; i++) {
        const struct conf_route *r = &v->routes[i];

        fprintf(f, "\n *   line %u: %s", r->line, conf_route_str(r, route));
        if (r->via) {
            char name[24];
            fprintf(f, " (%s)", conf_iface_name(v, r->iface, name));
        }
    }
    fprintf(f, " */\n#define %s \\\n", k->macro);
    for (unsigned i = 0; i < n; i++) {
        const struct conf_route *r = &v->routes[i];

        fprintf(f, "    %s{ 0x%08" PRIx32 "u, %u, 0x%08" PRIx32 "u, %u }%s\n", i == 0 ? "{ " : "  ",
                r->prefix, r->len, r->gateway, r->iface, i + 1 < n ? ", \\" : " }");
    }
    fputs("\n", f);
}

/* conf_put_route6: one CONFIG_ROUTES6 entry, { { prefix }, len, has_gateway, { gateway }, iface },
 * over four lines; first: the initializer's first entry, last: its last. */
static void conf_put_route6(FILE *f, const struct conf_route6 *r, bool first, bool last)
{
    fprintf(f, "    %s{ ", first ? "{ " : "  ");
    conf_put_ipv6_bytes(f, r->prefix, 8);
    fprintf(f, ", %u, %d, \\\n        ", r->len, r->via ? 1 : 0);
    conf_put_ipv6_bytes(f, r->gateway, 8);
    fprintf(f, ", %u }%s\n", r->iface, last ? " }" : ", \\");
}

/* conf_put_route6_comment: the comment line naming one route6, split before " via " if it would
 * not fit in 100 columns (two long addresses). */
static void conf_put_route6_comment(FILE *f, const struct conf_route6 *r)
{
    char route[CONF_ROUTE6_STR_BYTES];
    char line[CONF_ROUTE6_STR_BYTES + 64];
    const char *via;

    snprintf(line, sizeof(line), " *   line %u: %s", r->line, conf_route6_str(r, route));
    if (r->via && !r->dev) {
        conf_append(line, sizeof(line), " (port%u)", r->iface);
    }
    via = strstr(line, " via ");
    if (strlen(line) + 3 > 100 && via != NULL) { /* + 3: a closing " * /" may follow */
        fprintf(f, "\n%.*s\n *     %s", (int)(via - line), line, via + 1);
    } else {
        fprintf(f, "\n%s", line);
    }
}

/*
 * Print CONFIG_NROUTES6 and the route6 row's initializer: one conf_put_route6 entry per line in
 * file order (iface: the egress port), for a struct { uint8_t prefix[16]; uint8_t len; uint8_t
 * has_gateway; uint8_t gateway[16]; uint8_t iface; }. No lines gives one all-zero placeholder
 * entry, as for routes.
 */
static void conf_put_routes6(FILE *f, const struct conf_key *k, const struct conf_values *v)
{
    static const struct conf_route6 zero;
    char origin[CONF_DOC_MAX_BYTES + 64] = "";
    unsigned n = v->nroutes6;

    if (n == 0) {
        conf_append(origin, sizeof(origin), "%s: no lines. %s", k->name, k->doc);
    } else {
        conf_append(origin, sizeof(origin), "%s: %u line%s. %s", k->name, n, n == 1 ? "" : "s",
                    k->doc);
    }
    conf_put_comment(f, origin);
    fprintf(f, "#define %s %u\n", CONF_NROUTES6_MACRO, n);
    if (n == 0) {
        fputs("/* No IPv6 routes: one all-zero placeholder entry, as an initializer may not be "
              "empty; loop\n * to " CONF_NROUTES6_MACRO ", never to the array's size. */\n", f);
        fprintf(f, "#define %s \\\n", k->macro);
        conf_put_route6(f, &zero, true, true);
        fputs("\n", f);
        return;
    }
    fputs("/* { { prefix }, len, has_gateway, { gateway }, iface } per route6, in file order:", f);
    for (unsigned i = 0; i < n; i++) {
        conf_put_route6_comment(f, &v->routes6[i]);
    }
    fprintf(f, " */\n#define %s \\\n", k->macro);
    for (unsigned i = 0; i < n; i++) {
        conf_put_route6(f, &v->routes6[i], i == 0, i + 1 == n);
    }
    fputs("\n", f);
}

/*
 * Print CONF_NNEIGHS_MACRO and the static neighbours' initializer: { ip, { mac }, iface } per
 * line in file order; no lines gives one all-zero placeholder, as for routes.
 */
static void conf_put_neighs(FILE *f, const struct conf_key *k, const struct conf_values *v)
{
    char origin[CONF_DOC_MAX_BYTES + 64] = "";
    char ip[CONF_IPV4_STR_BYTES];
    unsigned n = v->nneighs;

    conf_append(origin, sizeof(origin), "%s: %u line%s. %s", k->name, n, n == 1 ? "" : "s",
                k->doc);
    conf_put_comment(f, origin);
    fprintf(f, "#define %s %u\n", CONF_NNEIGHS_MACRO, n);
    if (n == 0) {
        fputs("/* No static neighbours: one all-zero placeholder entry; loop to "
              CONF_NNEIGHS_MACRO ". */\n", f);
        fprintf(f, "#define %s \\\n    { { 0x00000000u, { 0, 0, 0, 0, 0, 0 }, 0 } }\n\n",
                k->macro);
        return;
    }
    fputs("/* { ip, { mac }, iface } per static neighbour, in file order:", f);
    for (unsigned i = 0; i < n; i++) {
        char name[24];
        fprintf(f, "\n *   line %u: %s (%s)", v->neighs[i].line,
                conf_ipv4_str(v->neighs[i].ip, ip), conf_iface_name(v, v->neighs[i].iface, name));
    }
    fprintf(f, " */\n#define %s \\\n", k->macro);
    for (unsigned i = 0; i < n; i++) {
        const struct conf_neigh *e = &v->neighs[i];

        fprintf(f, "    %s{ 0x%08" PRIx32 "u, ", i == 0 ? "{ " : "  ", e->ip);
        conf_put_mac(f, e->mac);
        fprintf(f, ", %u }%s\n", e->iface, i + 1 < n ? ", \\" : " }");
    }
    fputs("\n", f);
}

/*
 * Print CONF_NVLANS_MACRO and the VLAN sub-interfaces' initializer: { port, vid, ip, prefix }
 * per line in file order (the firmware's interfaces 4, 5, ...); none gives one placeholder.
 */
static void conf_put_vlans(FILE *f, const struct conf_key *k, const struct conf_values *v)
{
    char origin[CONF_DOC_MAX_BYTES + 64] = "";
    char ip[CONF_IPV4_STR_BYTES];
    unsigned n = v->nvlans;

    conf_append(origin, sizeof(origin), "%s: %u line%s. %s", k->name, n, n == 1 ? "" : "s",
                k->doc);
    conf_put_comment(f, origin);
    fprintf(f, "#define %s %u\n", CONF_NVLANS_MACRO, n);
    if (n == 0) {
        fputs("/* No VLANs: one all-zero placeholder entry; loop to " CONF_NVLANS_MACRO ". */\n",
              f);
        fprintf(f, "#define %s \\\n    { { 0, 0, 0x00000000u, 0 } }\n\n", k->macro);
        return;
    }
    fputs("/* { port, vid, ip, prefix } per VLAN sub-interface, in file order:", f);
    for (unsigned i = 0; i < n; i++) {
        const struct conf_vlan *e = &v->vlans[i];
        fprintf(f, "\n *   line %u: port%u.%u %s/%u (interface %u)", e->line, e->port, e->vid,
                conf_ipv4_str(e->ip, ip), e->prefix, CONF_PORT_COUNT + i);
    }
    fprintf(f, " */\n#define %s \\\n", k->macro);
    for (unsigned i = 0; i < n; i++) {
        const struct conf_vlan *e = &v->vlans[i];
        fprintf(f, "    %s{ %u, %u, 0x%08" PRIx32 "u, %u }%s\n", i == 0 ? "{ " : "  ", e->port,
                e->vid, e->ip, e->prefix, i + 1 < n ? ", \\" : " }");
    }
    fputs("\n", f);
}

/*
 * Print CONFIG_PORT_ADDRESSES: the port address keys again as one initializer, so firmware can
 * loop over ports: `static const struct x a[CONF_PORT_COUNT] = CONFIG_PORT_ADDRESSES;` with any
 * struct whose first three members are has_address, ip, prefix, in that order.
 */
static void conf_put_port_addresses(FILE *f, const struct conf_values *v)
{
    conf_put_comment(f, "Every port's address as { has_address, ip, prefix }, port0 first: the "
                        "CONFIG_PORTn_HAS_ADDRESS, _IP and _PREFIX values above, for loops.");
    fputs("#define CONFIG_PORT_ADDRESSES \\\n", f);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        const struct conf_value *a;

        snprintf(key, sizeof(key), "port%u.address", n);
        a = conf_get(v, key);
        if (a == NULL) {
            /* The table lost a port key: make the firmware build fail, not guess. */
            fprintf(f, "#error \"no key %s in conf_keys[]\"\n", key);
            return;
        }
        fprintf(f, "    %s{ %d, 0x%08" PRIx32 "u, %u }%s\n", n == 0 ? "{ " : "  ",
                a->present ? 1 : 0, a->ip, a->prefix, n + 1 < CONF_PORT_COUNT ? ", \\" : " }");
    }
    fputs("\n", f);
}

/*
 * Print CONFIG_PORT_ADDRESSES6: the portN.address6 keys again as one initializer of
 * { has_address6, { 16 bytes }, prefix6 } per port, port0 first, like CONFIG_PORT_ADDRESSES.
 */
static void conf_put_port_addresses6(FILE *f, const struct conf_values *v)
{
    conf_put_comment(f, "Every port's IPv6 address as { has_address6, { 16 bytes }, prefix6 }, "
                        "port0 first: the CONFIG_PORTn_HAS_ADDRESS6, _ADDRESS6 and _PREFIX6 "
                        "values above, for loops.");
    fputs("#define CONFIG_PORT_ADDRESSES6 \\\n", f);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        const struct conf_value *a;

        snprintf(key, sizeof(key), "port%u.address6", n);
        a = conf_get(v, key);
        if (a == NULL) {
            fprintf(f, "#error \"no key %s in conf_keys[]\"\n", key);
            return;
        }
        fprintf(f, "    %s{ %d, ", n == 0 ? "{ " : "  ", a->present ? 1 : 0);
        conf_put_ipv6_bytes(f, a->ip6, 11);
        fprintf(f, ", %u }%s\n", a->prefix, n + 1 < CONF_PORT_COUNT ? ", \\" : " }");
    }
    fputs("\n", f);
}

/*
 * Print CONFIG_PORT_NEXT_HOP_MACS: the next-hop MAC keys again as one initializer of
 * { has_mac, { 6 bytes } } per port, port0 first, for loops like CONFIG_PORT_ADDRESSES.
 */
static void conf_put_next_hop_macs(FILE *f, const struct conf_values *v)
{
    conf_put_comment(f, "Every port's next-hop MAC as { has_mac, { 6 bytes } }, port0 first: "
                        "the CONFIG_PORTn_NEXT_HOP_HAS_MAC and _MAC values above, for loops.");
    fputs("#define CONFIG_PORT_NEXT_HOP_MACS \\\n", f);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        const struct conf_value *m;

        snprintf(key, sizeof(key), "port%u.next_hop_mac", n);
        m = conf_get(v, key);
        if (m == NULL) {
            fprintf(f, "#error \"no key %s in conf_keys[]\"\n", key);
            return;
        }
        fprintf(f, "    %s{ %d, ", n == 0 ? "{ " : "  ", m->present ? 1 : 0);
        conf_put_mac(f, m->mac);
        fprintf(f, " }%s\n", n + 1 < CONF_PORT_COUNT ? ", \\" : " }");
    }
    fputs("\n", f);
}

/* Print CONFIG_PORT_PCI: every port's portN.pci as { has_pci, address }, port0 first. */
static void conf_put_port_pcis(FILE *f, const struct conf_values *v)
{
    conf_put_comment(f, "Every port's PCI function as { has_pci, segment << 16 | bus << 8 | "
                        "device << 3 | function }, port0 first: the CONFIG_PORTn_SLOT_HAS_PCI and "
                        "_SLOT_PCI values above, for loops.");
    fputs("#define CONFIG_PORT_PCI \\\n", f);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        snprintf(key, sizeof(key), "port%u.pci", n);
        const struct conf_value *a = conf_get(v, key);
        if (a == NULL) {
            fprintf(f, "#error \"no key %s in conf_keys[]\"\n", key);
            return;
        }
        fprintf(f, "    %s{ %d, 0x%06" PRIx64 " }%s\n", n == 0 ? "{ " : "  ", a->present ? 1 : 0,
                a->present ? a->num : 0, n + 1 < CONF_PORT_COUNT ? ", \\" : " }");
    }
    fputs("\n", f);
}

/*
 * Print CONFIG_MAX_MTU, the largest portN.mtu, and CONFIG_PKB_DATA_BYTES, the packet buffer
 * size that follows from it: one RX buffer holds a whole frame (MTU + 14 + a 4-byte VLAN tag),
 * the NICs take its size in 1 KiB units and the RX ring's length test wants a power of two, so
 * 2 KiB up to an MTU of 1500 and 16 KiB for jumbo frames (up to 9000).
 */
static void conf_put_buffer_size(FILE *f, const struct conf_values *v)
{
    int64_t max_mtu = 0;
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        snprintf(key, sizeof(key), "port%u.mtu", n);
        const struct conf_value *m = conf_get(v, key);
        if (m != NULL && m->present && m->num > max_mtu) {
            max_mtu = m->num;
        }
    }
    conf_put_comment(f, "The largest portN.mtu, and the packet buffer size it needs (a whole "
                        "frame with a VLAN tag in one RX buffer; a power of two): 2048 up to an "
                        "MTU of 1500, 16384 above (jumbo frames).");
    fprintf(f, "#define CONFIG_MAX_MTU %" PRId64 "\n", max_mtu);
    fprintf(f, "#define CONFIG_PKB_DATA_BYTES %d\n\n", max_mtu > 1500 ? 16384 : 2048);
}

int conf_emit_header(const struct conf_values *v, FILE *f)
{
    fputs("/* Generated by config/genconfig from ", f);
    conf_put_comment_text(f, v->file_name);
    fputs(": do not edit, edit that file.\n"
          " * Keys, values and macros are documented in docs/config.md. */\n"
          "#ifndef WS_CONFIG_GENERATED_H\n"
          "#define WS_CONFIG_GENERATED_H\n\n",
          f);
    for (size_t i = 0; i < conf_key_count; i++) {
        if (conf_keys[i].type == CONF_ROUTE) {
            conf_put_routes(f, &conf_keys[i], v);
        } else if (conf_keys[i].type == CONF_ROUTE6) {
            conf_put_routes6(f, &conf_keys[i], v);
        } else if (conf_keys[i].type == CONF_NEIGH) {
            conf_put_neighs(f, &conf_keys[i], v);
        } else if (conf_keys[i].type == CONF_VLAN) {
            conf_put_vlans(f, &conf_keys[i], v);
        } else {
            conf_put_define(f, &conf_keys[i], &v->val[i]);
        }
    }
    conf_put_port_addresses(f, v);
    conf_put_port_addresses6(f, v);
    conf_put_buffer_size(f, v);
    conf_put_next_hop_macs(f, v);
    conf_put_port_pcis(f, v);
    fputs("#endif\n", f);
    return ferror(f) ? WS_ERR_GENERIC : 0;
}

/* Append "`word` (num)" for each choice; "(num)" only where it differs from the word. */
static void conf_append_doc_choices(char *buf, size_t size, const struct conf_key *k)
{
    for (size_t i = 0; i < CONF_MAX_CHOICES && k->choices[i].word != NULL; i++) {
        const struct conf_choice *c = &k->choices[i];
        char num[32];

        snprintf(num, sizeof(num), k->hex ? "0x%" PRIx64 : "%" PRId64, c->num);
        conf_append(buf, size, "%s`%s`", i ? ", " : "", c->word);
        if (strcmp(num, c->word) != 0) {
            conf_append(buf, size, " (%s)", num);
        }
    }
}

/* The "Values" cell of the doc table for one key. */
static void conf_doc_values(char *buf, size_t size, const struct conf_key *k)
{
    buf[0] = '\0';
    switch (k->type) {
    case CONF_STRING:
        conf_append(buf, size, "%zu..%zu characters: A-Z a-z 0-9 `%s`", k->min_len, k->max_len,
                    k->extra_chars);
        break;
    case CONF_INT:
        conf_append_range(buf, size, k);
        if (k->step > 1) {
            conf_append(buf, size, ", multiple of %" PRId64, k->step);
        }
        if (k->pow2) {
            conf_append(buf, size, ", power of two");
        }
        if (k->choices[0].word != NULL) {
            conf_append(buf, size, "; or ");
            conf_append_doc_choices(buf, size, k);
        }
        break;
    case CONF_ENUM:
        if (k->one_hot) {
            conf_append_choices(buf, size, k, "`");
        } else {
            conf_append_doc_choices(buf, size, k);
        }
        break;
    case CONF_BOOL:
        conf_append(buf, size, "`yes` (1), `no` (0)");
        break;
    case CONF_IPV4_PREFIX:
        conf_append(buf, size, "`a.b.c.d/len`, len %" PRId64 "..%" PRId64 "; not in 0/8, 127/8, "
                    "224/4 or 240/4, not the network or broadcast address of its subnet, and no "
                    "two ports' subnets may overlap", k->min, k->max);
        break;
    case CONF_IPV6_PREFIX:
        conf_append(buf, size, "`x:x::x/len` (RFC 4291 2.2), len %" PRId64 "..%" PRId64 "; "
                    "global or unique-local unicast: not multicast, link-local, unspecified, "
                    "loopback or IPv4-mapped, below /127 not the subnet-router anycast address "
                    "(host bits zero), and no two ports' prefixes may overlap", k->min, k->max);
        break;
    case CONF_ROUTE6:
        conf_append(buf, size, "`P/len via G`, `P/len via fe80::X dev portN` or `P/len dev "
                    "portN`, len %" PRId64 "..%" PRId64 ", no host bits set; at most %d lines "
                    "(see IPv6)", k->min, k->max, CONF_MAX_ROUTES6);
        break;
    case CONF_MAC:
        conf_append(buf, size, "`aa:bb:cc:dd:ee:ff`: six two-digit hex octets, any case; not "
                    "all-zero, multicast or broadcast");
        break;
    case CONF_PCI_ADDR:
        conf_append(buf, size, "`ssss:bb:dd.f` or `bb:dd.f` in hex, as `lspci -D` prints it; no "
                    "two ports the same function");
        break;
    case CONF_PORT_PAIRS:
        conf_append(buf, size, "pairs `N-M` separated by spaces, ports 0..%d; a port in at most "
                    "one pair, never with itself", CONF_PORT_COUNT - 1);
        break;
    case CONF_ROUTE:
        conf_append(buf, size, "`a.b.c.d/len via e.f.g.h` or `a.b.c.d/len dev portN[.VID]`, len "
                    "%" PRId64 "..%" PRId64 ", no host bits set; at most %d lines (see Routes)",
                    k->min, k->max, CONF_MAX_ROUTES);
        break;
    case CONF_NEIGH:
        conf_append(buf, size, "`a.b.c.d aa:bb:cc:dd:ee:ff`: a host on an interface's subnet and "
                    "its MAC; one line per address, at most %d", CONF_MAX_NEIGHS);
        break;
    case CONF_VLAN:
        conf_append(buf, size, "`portN.VID a.b.c.d/len`: VID 1..4094, len %" PRId64 "..%" PRId64
                    ", a subnet of its own; one line per (port, VID), at most %d", k->min, k->max,
                    CONF_MAX_VLANS);
        break;
    }
}

/* The "Macro" cell of the doc table for one key. */
static void conf_doc_macros(char *buf, size_t size, const struct conf_key *k)
{
    char name[CONF_MSG_BYTES];

    buf[0] = '\0';
    if (k->type == CONF_IPV4_PREFIX) {
        conf_append(buf, size, "`%s_HAS_ADDRESS`, `%s_IP`, `%s_PREFIX`", k->macro, k->macro,
                    k->macro);
    } else if (k->type == CONF_IPV6_PREFIX) {
        conf_append(buf, size, "`%s_HAS_ADDRESS6`, `%s_ADDRESS6`, `%s_PREFIX6`", k->macro,
                    k->macro, k->macro);
    } else if (k->type == CONF_ROUTE6) {
        conf_append(buf, size, "`%s`, `%s`", CONF_NROUTES6_MACRO, k->macro);
    } else if (k->type == CONF_MAC) {
        conf_append(buf, size, "`%s_HAS_MAC`, `%s_MAC`", k->macro, k->macro);
    } else if (k->type == CONF_PCI_ADDR) {
        conf_append(buf, size, "`%s_HAS_PCI`, `%s_PCI`", k->macro, k->macro);
    } else if (k->type == CONF_ROUTE) {
        conf_append(buf, size, "`%s`, `%s`", CONF_NROUTES_MACRO, k->macro);
    } else if (k->type == CONF_NEIGH) {
        conf_append(buf, size, "`%s`, `%s`", CONF_NNEIGHS_MACRO, k->macro);
    } else if (k->type == CONF_VLAN) {
        conf_append(buf, size, "`%s`, `%s`", CONF_NVLANS_MACRO, k->macro);
    } else if (k->type == CONF_ENUM && k->one_hot) {
        for (size_t i = 0; i < CONF_MAX_CHOICES && k->choices[i].word != NULL; i++) {
            conf_one_hot_macro(name, sizeof(name), k, &k->choices[i]);
            conf_append(buf, size, "%s`%s`", i ? ", " : "", name);
        }
    } else {
        conf_append(buf, size, "`%s`", k->macro);
    }
}

int conf_emit_doc(FILE *f)
{
    char values[CONF_MSG_BYTES];
    char macros[CONF_MSG_BYTES];

    fputs("| Key | Required | Default | Values | Macro | Meaning |\n"
          "|-----|----------|---------|--------|-------|---------|\n",
          f);
    for (size_t i = 0; i < conf_key_count; i++) {
        const struct conf_key *k = &conf_keys[i];

        conf_doc_values(values, sizeof(values), k);
        conf_doc_macros(macros, sizeof(macros), k);
        fprintf(f, "| `%s` | %s | ", k->name, k->required ? "yes" : "no");
        if (k->required) {
            fputs("-", f);
        } else if (k->repeatable) {
            fputs("none", f);
        } else if (k->no_default) {
            fputs("unset", f);
        } else if (k->def_from_file) {
            fputs("file name without `.conf`", f);
        } else {
            fprintf(f, "`%s`", k->def);
        }
        fprintf(f, " | %s | %s | %s |\n", values, macros, k->doc);
    }
    return ferror(f) ? WS_ERR_GENERIC : 0;
}

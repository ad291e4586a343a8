/* config/confvalue.c: checks of one value on its own, by type (numbers, words, IPv4 and IPv6
 * addresses and prefixes, MAC addresses, port pairs, routes) with the exact messages for what is
 * wrong. Host code, built into genconfig and the unit tests. */
#include "confpriv.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

void conf_append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    if (used + 1 >= size) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* The choice whose word is text, or NULL. */
static const struct conf_choice *conf_choice_find(const struct conf_key *k, const char *text)
{
    for (size_t i = 0; i < CONF_MAX_CHOICES && k->choices[i].word != NULL; i++) {
        if (strcmp(k->choices[i].word, text) == 0) {
            return &k->choices[i];
        }
    }
    return NULL;
}

void conf_append_choices(char *buf, size_t size, const struct conf_key *k, const char *quote)
{
    for (size_t i = 0; i < CONF_MAX_CHOICES && k->choices[i].word != NULL; i++) {
        conf_append(buf, size, "%s%s%s%s", i ? ", " : "", quote, k->choices[i].word, quote);
    }
}

void conf_append_range(char *buf, size_t size, const struct conf_key *k)
{
    if (k->hex) {
        conf_append(buf, size, "0x%" PRIx64 "..0x%" PRIx64, k->min, k->max);
    } else {
        conf_append(buf, size, "%" PRId64 "..%" PRId64, k->min, k->max);
    }
}

/* Append " (or 'a', 'b')" naming the aliases of a CONF_INT key, if it has any. */
static void conf_append_aliases(char *buf, size_t size, const struct conf_key *k)
{
    if (k->choices[0].word != NULL) {
        conf_append(buf, size, " (or ");
        conf_append_choices(buf, size, k, "'");
        conf_append(buf, size, ")");
    }
}

/*
 * conf_parse_number: decimal, or hex after "0x"/"0X"; no sign, spaces or suffix. False if text
 * is not such a number. A value too large for int64_t comes back as INT64_MAX so that the
 * range check, not "not a number", reports it.
 */
static bool conf_parse_number(const char *text, int64_t *out)
{
    const char *s = text;
    uint64_t base = 10;
    uint64_t n = 0;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (*s == '\0') {
        return false;
    }
    for (; *s != '\0'; s++) {
        uint64_t d;

        if (conf_is_digit(*s)) {
            d = (uint64_t)(*s - '0');
        } else if (base == 16 && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')) {
            d = (uint64_t)((*s | 0x20) - 'a' + 10);
        } else {
            return false;
        }
        n = n > ((uint64_t)INT64_MAX - d) / base ? (uint64_t)INT64_MAX : n * base + d;
    }
    *out = (int64_t)n;
    return true;
}

/* Check a CONF_INT value: an alias word, or a number in range and a multiple of step. */
static bool conf_check_int(const struct conf_key *k, const char *text, int64_t *num, char *msg,
                           size_t size)
{
    const struct conf_choice *c = conf_choice_find(k, text);

    if (c != NULL) {
        *num = c->num;
        return true;
    }
    if (!conf_parse_number(text, num)) {
        conf_append(msg, size, "%s: '%s' is not a number: expected ", k->name, text);
        conf_append_range(msg, size, k);
        conf_append_aliases(msg, size, k);
        return false;
    }
    if (*num < k->min || *num > k->max) {
        conf_append(msg, size, "%s: '%s' out of range ", k->name, text);
        conf_append_range(msg, size, k);
        conf_append_aliases(msg, size, k);
        return false;
    }
    if (k->step > 1 && *num % k->step != 0) {
        conf_append(msg, size, "%s: '%s' is not a multiple of %" PRId64, k->name, text, k->step);
        return false;
    }
    if (k->pow2 && (*num <= 0 || (*num & (*num - 1)) != 0)) {
        conf_append(msg, size, "%s: %s is not a power of two", k->name, text);
        return false;
    }
    return true;
}

const char *conf_ipv4_str(uint32_t ip, char *buf)
{
    snprintf(buf, CONF_IPV4_STR_BYTES, "%u.%u.%u.%u", (unsigned)(ip >> 24),
             (unsigned)(ip >> 16) & 0xff, (unsigned)(ip >> 8) & 0xff, (unsigned)ip & 0xff);
    return buf;
}

/*
 * conf_parse_field: the decimal field of n > 0 digits at s. False if it has a leading zero
 * ("018": octal to inet_aton, decimal to others, so refused as ambiguous); else *out is its
 * value, saturated at 99999 so that the caller's range check reports a long field.
 */
static bool conf_parse_field(const char *s, size_t n, unsigned *out)
{
    if (n > 1 && s[0] == '0') {
        return false;
    }
    *out = 0;
    for (size_t i = 0; i < n; i++) {
        *out = *out >= 9999 ? 99999 : *out * 10 + (unsigned)(s[i] - '0');
    }
    return true;
}

/* Outcome of conf_parse_quad. */
enum conf_quad_status {
    CONF_QUAD_OK,
    CONF_QUAD_SYNTAX,       /* not four decimal fields separated by '.' and ended by end */
    CONF_QUAD_LEADING_ZERO, /* *oct, *oct_len: the octet with a leading zero */
    CONF_QUAD_RANGE,        /* *oct, *oct_len: the octet above 255 */
};

/*
 * conf_parse_quad: four decimal octets 0..255 without leading zeros at s, '.' between them, the
 * last one followed by the character end ('/' before a prefix length, '\0' for an address
 * alone). On success *ip is the address and *rest points just past end.
 */
static enum conf_quad_status conf_parse_quad(const char *s, char end, uint32_t *ip,
                                             const char **rest, const char **oct, size_t *oct_len)
{
    unsigned v;
    size_t n = 0;

    *ip = 0;
    for (int i = 0; i < 4; i++, s += n + 1) {
        n = strspn(s, "0123456789");
        *oct = s;
        *oct_len = n;
        if (n == 0 || s[n] != (i < 3 ? '.' : end)) {
            return CONF_QUAD_SYNTAX;
        }
        if (!conf_parse_field(s, n, &v)) {
            return CONF_QUAD_LEADING_ZERO;
        }
        if (v > 255) {
            return CONF_QUAD_RANGE;
        }
        *ip = *ip << 8 | v;
    }
    *rest = s;
    return CONF_QUAD_OK;
}

/*
 * conf_parse_prefix_len: the length s, what follows the '/' of text (a value of k), strictly: a
 * decimal number without sign or leading zero, in k's [min, max]. IPv4 and IPv6 alike.
 */
static bool conf_parse_prefix_len(const struct conf_key *k, const char *text, const char *s,
                                  unsigned *prefix, char *msg, size_t size)
{
    size_t n = strspn(s, "0123456789");
    unsigned v;

    if (n == 0 || s[n] != '\0') {
        conf_append(msg, size, "%s: '%s': prefix length '%s' is not a number: expected "
                    "%" PRId64 "..%" PRId64, k->name, text, s, k->min, k->max);
        return false;
    }
    if (!conf_parse_field(s, n, &v)) {
        conf_append(msg, size, "%s: '%s': prefix length '%s' has a leading zero: write it "
                    "without", k->name, text, s);
        return false;
    }
    if (v < k->min || v > k->max) {
        conf_append(msg, size, "%s: '%s': prefix length %s out of range %" PRId64 "..%" PRId64,
                    k->name, text, s, k->min, k->max);
        return false;
    }
    *prefix = v;
    return true;
}

/*
 * conf_parse_ipv4_prefix: "a.b.c.d/len", strictly: four decimal octets 0..255 without leading
 * zeros, '.' between them, '/', a decimal length in k's [min, max]; nothing else (no sign, no
 * space, no hex). Syntax only: which addresses make sense is conf_check_ipv4_use's business.
 */
static bool conf_parse_ipv4_prefix(const struct conf_key *k, const char *text, uint32_t *ip,
                                   unsigned *prefix, char *msg, size_t size)
{
    const char *s;
    const char *oct;
    size_t n;

    if (strchr(text, '/') == NULL) {
        conf_append(msg, size, "%s: '%s' has no prefix length: expected a.b.c.d/len, len "
                    "%" PRId64 "..%" PRId64, k->name, text, k->min, k->max);
        return false;
    }
    switch (conf_parse_quad(text, '/', ip, &s, &oct, &n)) {
    case CONF_QUAD_OK:
        break;
    case CONF_QUAD_SYNTAX:
        conf_append(msg, size, "%s: '%s' is not an IPv4 address with prefix length: expected "
                    "a.b.c.d/len, four decimal octets 0..255", k->name, text);
        return false;
    case CONF_QUAD_LEADING_ZERO:
        conf_append(msg, size, "%s: '%s': octet '%.*s' has a leading zero (octal or "
                    "decimal?): write it without", k->name, text, (int)n, oct);
        return false;
    case CONF_QUAD_RANGE:
        conf_append(msg, size, "%s: '%s': octet '%.*s' out of range 0..255", k->name, text,
                    (int)n, oct);
        return false;
    }
    return conf_parse_prefix_len(k, text, s, prefix, msg, size);
}

/*
 * conf_check_ipv4_use: refuse addresses no interface may have (RFC 1122 3.2.1.3, RFC 5771 for
 * multicast, RFC 6890), then the network and broadcast address of the address's own subnet.
 */
static bool conf_check_ipv4_use(const struct conf_key *k, uint32_t ip, unsigned prefix,
                                char *msg, size_t size)
{
    /* First match wins: 255.255.255.255 lies in 240/4 but deserves its own name. */
    static const struct {
        uint32_t net;
        unsigned len;
        const char *what;
    } special[] = {
        { 0xffffffff, 32, "the limited broadcast address" },
        { 0x00000000, 8, "in 0.0.0.0/8 ('this network'), not an interface address" },
        { 0x7f000000, 8, "a loopback address (127.0.0.0/8)" },
        { 0xe0000000, 4, "a multicast address (224.0.0.0/4)" },
        { 0xf0000000, 4, "in the reserved range 240.0.0.0/4" },
    };
    uint32_t mask = conf_ipv4_mask(prefix);
    char a[16], net[16];

    for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
        if ((ip & conf_ipv4_mask(special[i].len)) == special[i].net) {
            conf_append(msg, size, "%s: %s is %s", k->name, conf_ipv4_str(ip, a),
                        special[i].what);
            return false;
        }
    }
    if ((ip & ~mask) == 0 || (ip & ~mask) == ~mask) {
        conf_append(msg, size, "%s: %s is the %s address of %s/%u", k->name, conf_ipv4_str(ip, a),
                    (ip & ~mask) == 0 ? "network" : "broadcast", conf_ipv4_str(ip & mask, net),
                    prefix);
        return false;
    }
    return true;
}

const char *conf_ipv6_str(const uint8_t *a, char *buf)
{
    if (inet_ntop(AF_INET6, a, buf, CONF_IPV6_STR_BYTES) == NULL) {
        snprintf(buf, CONF_IPV6_STR_BYTES, "?"); /* cannot happen: the buffer is big enough */
    }
    return buf;
}

/*
 * conf_parse_ipv6: the n characters at s as an IPv6 address in the text form of RFC 4291 2.2
 * (hex groups, one "::", an embedded dotted quad last), by the host C library's inet_pton, which
 * takes nothing else: no zone ("%eth0"), no brackets, no spaces. False if it is not one.
 */
static bool conf_parse_ipv6(const char *s, size_t n, uint8_t *a)
{
    char buf[CONF_IPV6_STR_BYTES];

    if (n == 0 || n >= sizeof(buf)) {
        return false; /* empty, or longer than any address written out in full */
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return inet_pton(AF_INET6, buf, a) == 1;
}

/*
 * conf_parse_ipv6_prefix: "x:x::x/len": an IPv6 address as conf_parse_ipv6 takes it, '/', and a
 * decimal length in k's [min, max] as strict as an IPv4 one's. Syntax only: which addresses make
 * sense is conf_check_ipv6_use's business.
 */
static bool conf_parse_ipv6_prefix(const struct conf_key *k, const char *text, uint8_t *a,
                                   unsigned *prefix, char *msg, size_t size)
{
    const char *slash = strchr(text, '/');

    if (slash == NULL) {
        conf_append(msg, size, "%s: '%s' has no prefix length: expected x:x::x/len, len "
                    "%" PRId64 "..%" PRId64, k->name, text, k->min, k->max);
        return false;
    }
    if (!conf_parse_ipv6(text, (size_t)(slash - text), a)) {
        conf_append(msg, size, "%s: '%s' is not an IPv6 address with prefix length: expected "
                    "x:x::x/len, hex groups of RFC 4291 2.2 (e.g. 2001:db8::1/64)", k->name, text);
        return false;
    }
    return conf_parse_prefix_len(k, text, slash + 1, prefix, msg, size);
}

/*
 * conf_ipv6_special: what a is, if it is an address no IPv6 interface or next hop may have
 * (RFC 4291 2.5.2 unspecified, 2.5.3 loopback, 2.5.5.2 IPv4-mapped, 2.7 multicast), or
 * link-local (2.5.6) unless allowed: a phrase for "<address> is ...", or NULL.
 */
static const char *conf_ipv6_special(const uint8_t *a, bool link_local_ok)
{
    static const uint8_t unspecified[CONF_IPV6_BYTES];
    static const uint8_t loopback[CONF_IPV6_BYTES] = { [15] = 1 };
    static const uint8_t mapped[CONF_IPV6_BYTES] = { [10] = 0xff, [11] = 0xff };

    if (memcmp(a, unspecified, CONF_IPV6_BYTES) == 0) {
        return "the unspecified address (::)";
    }
    if (memcmp(a, loopback, CONF_IPV6_BYTES) == 0) {
        return "the loopback address (::1)";
    }
    if (conf_ipv6_same_prefix(a, mapped, 96)) {
        return "an IPv4-mapped address (::ffff:0:0/96)";
    }
    if (a[0] == 0xff) {
        return "a multicast address (ff00::/8)";
    }
    if (!link_local_ok && conf_ipv6_is_link_local(a)) {
        return "a link-local address (fe80::/10): derived from the MAC automatically; give a "
               "global or unique-local address";
    }
    return NULL;
}

/*
 * conf_check_ipv6_use: a port's own address must be global or unique-local unicast (so not
 * conf_ipv6_special's, link-local included), and not the subnet-router anycast address of its
 * prefix (all host bits zero, RFC 4291 2.6.1), which every router on the link answers; /127
 * (RFC 6164) and /128 have no such address.
 */
static bool conf_check_ipv6_use(const struct conf_key *k, const uint8_t *a, unsigned prefix,
                                char *msg, size_t size)
{
    const char *what = conf_ipv6_special(a, false);
    uint8_t net[CONF_IPV6_BYTES];
    char as[CONF_IPV6_STR_BYTES], ns[CONF_IPV6_STR_BYTES];

    if (what != NULL) {
        conf_append(msg, size, "%s: %s is %s", k->name, conf_ipv6_str(a, as), what);
        return false;
    }
    conf_ipv6_prefix_of(net, a, prefix);
    if (prefix < 127 && memcmp(net, a, CONF_IPV6_BYTES) == 0) {
        conf_append(msg, size, "%s: %s is the subnet-router anycast address of %s/%u (host bits "
                    "all zero, RFC 4291 2.6.1): give a host address", k->name,
                    conf_ipv6_str(a, as), conf_ipv6_str(net, ns), prefix);
        return false;
    }
    return true;
}

/* Check a CONF_STRING value: length bounds, then alphanumerics plus extra_chars only. */
static bool conf_check_string(const struct conf_key *k, const char *text, char *msg, size_t size)
{
    size_t len = strlen(text);

    if (len < k->min_len || len > k->max_len) {
        conf_append(msg, size, "%s: '%s' has %zu characters, expected %zu..%zu", k->name, text,
                    len, k->min_len, k->max_len);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!conf_is_alnum(text[i]) && strchr(k->extra_chars, text[i]) == NULL) {
            conf_append(msg, size, "%s: '%s' contains '%c': allowed are A-Z a-z 0-9 and %s",
                        k->name, text, text[i], k->extra_chars);
            return false;
        }
    }
    return true;
}

/* The value of a hex digit, or -1. */
static int conf_hex_digit(char c)
{
    if (conf_is_digit(c)) {
        return c - '0';
    }
    c = (char)(c | 0x20); /* ASCII lower case */
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * conf_check_mac: "aa:bb:cc:dd:ee:ff", exactly six two-digit hex octets (any case) separated by
 * ':', naming one station: not all-zero, not a group address (I/G bit, the least significant
 * bit of the first octet, IEEE 802-2014 8.2.2), which also rules out broadcast.
 */
static bool conf_check_mac(const struct conf_key *k, const char *text, uint8_t *mac, char *msg,
                           size_t size)
{
    static const uint8_t zero[CONF_MAC_BYTES];
    char norm[3 * CONF_MAC_BYTES];

    for (size_t i = 0; i < CONF_MAC_BYTES; i++) {
        const char *s = text + 3 * i;
        int hi = conf_hex_digit(s[0]);
        int lo = hi < 0 ? -1 : conf_hex_digit(s[1]);

        if (lo < 0 || s[2] != (i + 1 < CONF_MAC_BYTES ? ':' : '\0')) {
            conf_append(msg, size, "%s: '%s' is not a MAC address: expected aa:bb:cc:dd:ee:ff, "
                        "six two-digit hex octets", k->name, text);
            return false;
        }
        mac[i] = (uint8_t)(hi << 4 | lo);
    }
    snprintf(norm, sizeof(norm), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
             mac[4], mac[5]);
    if (memcmp(mac, zero, sizeof(zero)) == 0) {
        conf_append(msg, size, "%s: %s is the all-zero address, not a station's", k->name, norm);
        return false;
    }
    if (strcmp(norm, "ff:ff:ff:ff:ff:ff") == 0) {
        conf_append(msg, size, "%s: %s is the broadcast address", k->name, norm);
        return false;
    }
    if (mac[0] & 1) {
        conf_append(msg, size, "%s: %s is a multicast address (group bit set in the first octet)",
                    k->name, norm);
        return false;
    }
    return true;
}

/* conf_hex_field: exactly n hex digits at s (any case) into *out; false otherwise. */
static bool conf_hex_field(const char *s, size_t n, unsigned *out)
{
    *out = 0;
    for (size_t i = 0; i < n; i++) {
        int d = conf_hex_digit(s[i]);
        if (d < 0) {
            return false;
        }
        *out = *out << 4 | (unsigned)d;
    }
    return true;
}

/*
 * conf_check_pci: "[ssss:]bb:dd.f", hex as `lspci -D` prints it: an optional 4-digit segment,
 * a 2-digit bus, a 2-digit device 00..1f and a function 0..7. The segment defaults to 0000.
 */
static bool conf_check_pci(const struct conf_key *k, const char *text, int64_t *num, char *msg,
                           size_t size)
{
    const char *s = text;
    unsigned seg = 0, bus, dev, fn;
    if (strlen(s) == 12 && s[4] == ':') {
        if (!conf_hex_field(s, 4, &seg)) {
            goto bad;
        }
        s += 5;
    }
    if (strlen(s) != 7 || s[2] != ':' || s[5] != '.' || !conf_hex_field(s, 2, &bus) ||
        !conf_hex_field(s + 3, 2, &dev) || !conf_hex_field(s + 6, 1, &fn)) {
        goto bad;
    }
    if (dev > 0x1F || fn > 7) {
        conf_append(msg, size, "%s: '%s': device %02x and function %x must be 00..1f and 0..7",
                    k->name, text, dev, fn);
        return false;
    }
    *num = (int64_t)seg << 16 | bus << 8 | dev << 3 | fn;
    return true;
bad:
    conf_append(msg, size, "%s: '%s' is not a PCI address: expected ssss:bb:dd.f or bb:dd.f in "
                "hex, as lspci -D prints it (e.g. 0000:03:00.0)", k->name, text);
    return false;
}

/* A port number, the n > 0 digits at s: false if it has a leading zero or is not a port. */
static bool conf_parse_port(const char *s, size_t n, unsigned *port)
{
    return n > 0 && strspn(s, "0123456789") >= n && conf_parse_field(s, n, port) &&
           *port < CONF_PORT_COUNT;
}

/*
 * conf_check_pairs: "N-M N-M ...", pairs of port numbers separated by spaces or tabs; a port
 * in at most one pair, never with itself. Fills peer[] (-1: in no pair).
 */
static bool conf_check_pairs(const struct conf_key *k, const char *text, int8_t *peer, char *msg,
                             size_t size)
{
    const char *pair_of[CONF_PORT_COUNT] = { NULL }; /* the pair naming each port, for errors */
    size_t pair_len[CONF_PORT_COUNT] = { 0 };

    for (const char *s = text + strspn(text, " \t"); *s != '\0'; s += strspn(s, " \t")) {
        size_t n = strcspn(s, " \t");
        const char *dash = memchr(s, '-', n);
        unsigned a, b;

        if (dash == NULL || !conf_parse_port(s, (size_t)(dash - s), &a) ||
            !conf_parse_port(dash + 1, n - (size_t)(dash - s) - 1, &b)) {
            conf_append(msg, size, "%s: '%.*s' is not a port pair: expected N-M, ports 0..%d, "
                        "pairs separated by spaces", k->name, (int)n, s, CONF_PORT_COUNT - 1);
            return false;
        }
        if (a == b) {
            conf_append(msg, size, "%s: '%.*s' pairs port %u with itself", k->name, (int)n, s, a);
            return false;
        }
        if (pair_of[a] != NULL || pair_of[b] != NULL) {
            unsigned p = pair_of[a] != NULL ? a : b;

            conf_append(msg, size, "%s: port %u is in two pairs, '%.*s' and '%.*s'", k->name, p,
                        (int)pair_len[p], pair_of[p], (int)n, s);
            return false;
        }
        pair_of[a] = pair_of[b] = s;
        pair_len[a] = pair_len[b] = n;
        peer[a] = (int8_t)b;
        peer[b] = (int8_t)a;
        s += n;
    }
    return true;
}

const char *conf_route_str(const struct conf_route *r, char *buf)
{
    char net[CONF_IPV4_STR_BYTES], gw[CONF_IPV4_STR_BYTES];

    if (r->via) {
        snprintf(buf, CONF_ROUTE_STR_BYTES, "%s/%u via %s", conf_ipv4_str(r->prefix, net), r->len,
                 conf_ipv4_str(r->gateway, gw));
    } else {
        int n = snprintf(buf, CONF_ROUTE_STR_BYTES, "%s/%u dev port%u",
                         conf_ipv4_str(r->prefix, net), r->len, r->dev_port);
        if (r->dev_vid != 0 && n > 0 && n < CONF_ROUTE_STR_BYTES) {
            snprintf(buf + n, CONF_ROUTE_STR_BYTES - (size_t)n, ".%u", r->dev_vid);
        }
    }
    return buf;
}

/* The gateway of a "via" route: a dotted quad alone, as strict as a port address's. */
/* conf_parse_gateway: a host address on a route or neighbour line; `what` names it in errors
 * ("gateway", "neighbour"). */
static bool conf_parse_gateway(const struct conf_key *k, const char *what, const char *text,
                               uint32_t *ip, char *msg, size_t size)
{
    const char *rest, *oct;
    size_t n;

    switch (conf_parse_quad(text, '\0', ip, &rest, &oct, &n)) {
    case CONF_QUAD_OK:
        return true;
    case CONF_QUAD_SYNTAX:
        conf_append(msg, size, "%s: %s '%s' is not an IPv4 address: expected a.b.c.d, four "
                    "decimal octets 0..255", k->name, what, text);
        return false;
    case CONF_QUAD_LEADING_ZERO:
        conf_append(msg, size, "%s: %s '%s': octet '%.*s' has a leading zero (octal or "
                    "decimal?): write it without", k->name, what, text, (int)n, oct);
        return false;
    case CONF_QUAD_RANGE:
        conf_append(msg, size, "%s: %s '%s': octet '%.*s' out of range 0..255", k->name, what,
                    text, (int)n, oct);
        return false;
    }
    return false;
}

/* conf_parse_vid: an 802.1Q VLAN ID, 1..4094 (0 means "no VLAN" and 4095 is reserved, IEEE
 * 802.1Q table 9-2). */
static bool conf_parse_vid(const char *s, size_t n, unsigned *vid)
{
    return n > 0 && strspn(s, "0123456789") >= n && conf_parse_field(s, n, vid) && *vid >= 1 &&
           *vid <= 4094;
}

/* conf_parse_iface_name: "portN" (vid 0) or "portN.VID". */
static bool conf_parse_iface_name(const char *s, unsigned *port, unsigned *vid)
{
    if (strncmp(s, "port", 4) != 0) {
        return false;
    }
    s += 4;
    const char *dot = strchr(s, '.');
    *vid = 0;
    if (dot == NULL) {
        return conf_parse_port(s, strlen(s), port);
    }
    return conf_parse_port(s, (size_t)(dot - s), port) &&
           conf_parse_vid(dot + 1, strlen(dot + 1), vid);
}

bool conf_parse_route(const struct conf_key *k, const char *text, struct conf_route *r,
                      char *msg, size_t size)
{
    char word[4][CONF_LINE_MAX_BYTES + 1]; /* a fourth word only to notice that there is one */
    const char *s = text;
    unsigned nwords = 0;
    char net[CONF_IPV4_STR_BYTES];

    msg[0] = '\0';
    memset(r, 0, sizeof(*r));
    for (s += strspn(s, " \t"); *s != '\0' && nwords < 4; s += strspn(s, " \t")) {
        size_t n = strcspn(s, " \t");

        snprintf(word[nwords++], sizeof(word[0]), "%.*s", (int)n, s);
        s += n;
    }
    if (nwords != 3 || (strcmp(word[1], "via") != 0 && strcmp(word[1], "dev") != 0)) {
        conf_append(msg, size, "%s: '%s': expected 'prefix/len via gateway' or 'prefix/len dev "
                    "portN'", k->name, text);
        return false;
    }
    if (!conf_parse_ipv4_prefix(k, word[0], &r->prefix, &r->len, msg, size)) {
        return false;
    }
    if ((r->prefix & ~conf_ipv4_mask(r->len)) != 0) {
        conf_append(msg, size, "%s: %s has host bits set (did you mean %s/%u?)", k->name, word[0],
                    conf_ipv4_str(r->prefix & conf_ipv4_mask(r->len), net), r->len);
        return false;
    }
    r->via = strcmp(word[1], "via") == 0;
    if (r->via) {
        return conf_parse_gateway(k, "gateway", word[2], &r->gateway, msg, size);
    }
    if (!conf_parse_iface_name(word[2], &r->dev_port, &r->dev_vid)) {
        conf_append(msg, size, "%s: '%s' is not an interface: expected port0..port%d, or portN.VID "
                    "(VID 1..4094) for a VLAN", k->name, word[2], CONF_PORT_COUNT - 1);
        return false;
    }
    r->iface = r->dev_port;
    return true;
}

const char *conf_route6_str(const struct conf_route6 *r, char *buf)
{
    char net[CONF_IPV6_STR_BYTES], gw[CONF_IPV6_STR_BYTES];
    int n = snprintf(buf, CONF_ROUTE6_STR_BYTES, "%s/%u", conf_ipv6_str(r->prefix, net), r->len);

    if (r->via && n > 0 && n < CONF_ROUTE6_STR_BYTES) {
        n += snprintf(buf + n, CONF_ROUTE6_STR_BYTES - (size_t)n, " via %s",
                      conf_ipv6_str(r->gateway, gw));
    }
    if (r->dev && n > 0 && n < CONF_ROUTE6_STR_BYTES) {
        snprintf(buf + n, CONF_ROUTE6_STR_BYTES - (size_t)n, " dev port%u", r->dev_port);
    }
    return buf;
}

/* conf_parse_route6_gateway: the gateway of a "via" route6: an address a next hop may have. */
static bool conf_parse_route6_gateway(const struct conf_key *k, const char *text,
                                      struct conf_route6 *r, char *msg, size_t size)
{
    char gw[CONF_IPV6_STR_BYTES];
    const char *what;

    if (!conf_parse_ipv6(text, strlen(text), r->gateway)) {
        conf_append(msg, size, "%s: gateway '%s' is not an IPv6 address: expected x:x::x, hex "
                    "groups of RFC 4291 2.2 (e.g. 2001:db8::2 or fe80::1)", k->name, text);
        return false;
    }
    what = conf_ipv6_special(r->gateway, true);
    if (what != NULL) {
        conf_append(msg, size, "%s: gateway %s is %s", k->name, conf_ipv6_str(r->gateway, gw),
                    what);
        return false;
    }
    /* fe80::/10 is on every link: only the port says which one (as `ip -6 route ... dev`). */
    if (conf_ipv6_is_link_local(r->gateway) && !r->dev) {
        conf_ipv6_str(r->gateway, gw);
        conf_append(msg, size, "%s: link-local gateway %s needs its port: write 'via %s dev "
                    "portN'", k->name, gw, gw);
        return false;
    }
    return true;
}

bool conf_parse_route6(const struct conf_key *k, const char *text, struct conf_route6 *r,
                       char *msg, size_t size)
{
    char word[6][CONF_LINE_MAX_BYTES + 1]; /* a sixth word only to notice that there is one */
    const char *s = text;
    unsigned nwords = 0;
    uint8_t net[CONF_IPV6_BYTES];
    char ns[CONF_IPV6_STR_BYTES];
    unsigned vid;

    msg[0] = '\0';
    memset(r, 0, sizeof(*r));
    for (s += strspn(s, " \t"); *s != '\0' && nwords < 6; s += strspn(s, " \t")) {
        size_t n = strcspn(s, " \t");

        snprintf(word[nwords++], sizeof(word[0]), "%.*s", (int)n, s);
        s += n;
    }
    r->via = nwords >= 3 && strcmp(word[1], "via") == 0;
    r->dev = (nwords == 3 && strcmp(word[1], "dev") == 0) ||
             (nwords == 5 && r->via && strcmp(word[3], "dev") == 0);
    if (!(nwords == 3 && (r->via || r->dev)) && !(nwords == 5 && r->via && r->dev)) {
        conf_append(msg, size, "%s: '%s': expected 'prefix/len via gateway', 'prefix/len via "
                    "fe80::X dev portN' or 'prefix/len dev portN'", k->name, text);
        return false;
    }
    if (!conf_parse_ipv6_prefix(k, word[0], r->prefix, &r->len, msg, size)) {
        return false;
    }
    conf_ipv6_prefix_of(net, r->prefix, r->len);
    if (memcmp(net, r->prefix, CONF_IPV6_BYTES) != 0) {
        conf_append(msg, size, "%s: %s has host bits set (did you mean %s/%u?)", k->name, word[0],
                    conf_ipv6_str(net, ns), r->len);
        return false;
    }
    if (r->via && !conf_parse_route6_gateway(k, word[2], r, msg, size)) {
        return false;
    }
    if (r->dev) {
        const char *dev = word[nwords - 1];

        if (!conf_parse_iface_name(dev, &r->dev_port, &vid)) {
            conf_append(msg, size, "%s: '%s' is not a port: expected port0..port%d", k->name, dev,
                        CONF_PORT_COUNT - 1);
            return false;
        }
        if (vid != 0) {
            conf_append(msg, size, "%s: dev %s: IPv6 on VLAN sub-interfaces is not supported",
                        k->name, dev);
            return false;
        }
        r->iface = r->dev_port;
    }
    return true;
}

bool conf_parse_neigh(const struct conf_key *k, const char *text, struct conf_neigh *n,
                      char *msg, size_t size)
{
    char word[3][CONF_LINE_MAX_BYTES + 1]; /* a third word only to notice that there is one */
    const char *s = text;
    unsigned nwords = 0;

    msg[0] = '\0';
    memset(n, 0, sizeof(*n));
    for (s += strspn(s, " \t"); *s != '\0' && nwords < 3; s += strspn(s, " \t")) {
        size_t len = strcspn(s, " \t");

        snprintf(word[nwords++], sizeof(word[0]), "%.*s", (int)len, s);
        s += len;
    }
    if (nwords != 2) {
        conf_append(msg, size, "%s: '%s': expected 'a.b.c.d aa:bb:cc:dd:ee:ff' (an address and "
                    "its MAC)", k->name, text);
        return false;
    }
    return conf_parse_gateway(k, "neighbour", word[0], &n->ip, msg, size) &&
           conf_check_mac(k, word[1], n->mac, msg, size);
}

bool conf_parse_vlan(const struct conf_key *k, const char *text, struct conf_vlan *v, char *msg,
                     size_t size)
{
    char word[3][CONF_LINE_MAX_BYTES + 1]; /* a third word only to notice that there is one */
    const char *s = text;
    unsigned nwords = 0;

    msg[0] = '\0';
    memset(v, 0, sizeof(*v));
    for (s += strspn(s, " \t"); *s != '\0' && nwords < 3; s += strspn(s, " \t")) {
        size_t len = strcspn(s, " \t");

        snprintf(word[nwords++], sizeof(word[0]), "%.*s", (int)len, s);
        s += len;
    }
    if (nwords != 2) {
        conf_append(msg, size, "%s: '%s': expected 'portN.VID a.b.c.d/len' (a port's VLAN and "
                    "its address)", k->name, text);
        return false;
    }
    if (!conf_parse_iface_name(word[0], &v->port, &v->vid) || v->vid == 0) {
        conf_append(msg, size, "%s: '%s' is not a VLAN sub-interface: expected portN.VID, port "
                    "0..%d, VID 1..4094", k->name, word[0], CONF_PORT_COUNT - 1);
        return false;
    }
    return conf_parse_ipv4_prefix(k, word[1], &v->ip, &v->prefix, msg, size) &&
           conf_check_ipv4_use(k, v->ip, v->prefix, msg, size);
}

bool conf_check_value(const struct conf_key *k, const char *text, struct conf_value *res,
                      char *msg, size_t size)
{
    const struct conf_choice *c;
    int64_t *num = &res->num;

    msg[0] = '\0';
    res->num = 0;
    res->ip = 0;
    res->prefix = 0;
    memset(res->ip6, 0, sizeof(res->ip6));
    memset(res->mac, 0, sizeof(res->mac));
    memset(res->peer, -1, sizeof(res->peer));
    switch (k->type) {
    case CONF_STRING:
        return conf_check_string(k, text, msg, size);
    case CONF_INT:
        return conf_check_int(k, text, num, msg, size);
    case CONF_ENUM:
        c = conf_choice_find(k, text);
        if (c == NULL) {
            conf_append(msg, size, "%s: '%s' is not one of ", k->name, text);
            conf_append_choices(msg, size, k, "");
            return false;
        }
        *num = c->num;
        return true;
    case CONF_BOOL:
        if (strcmp(text, "yes") != 0 && strcmp(text, "no") != 0) {
            conf_append(msg, size, "%s: '%s': expected yes or no", k->name, text);
            return false;
        }
        *num = strcmp(text, "yes") == 0;
        return true;
    case CONF_IPV4_PREFIX:
        return conf_parse_ipv4_prefix(k, text, &res->ip, &res->prefix, msg, size) &&
               conf_check_ipv4_use(k, res->ip, res->prefix, msg, size);
    case CONF_IPV6_PREFIX:
        return conf_parse_ipv6_prefix(k, text, res->ip6, &res->prefix, msg, size) &&
               conf_check_ipv6_use(k, res->ip6, res->prefix, msg, size);
    case CONF_MAC:
        return conf_check_mac(k, text, res->mac, msg, size);
    case CONF_PCI_ADDR:
        return conf_check_pci(k, text, num, msg, size);
    case CONF_PORT_PAIRS:
        return conf_check_pairs(k, text, res->peer, msg, size);
    case CONF_ROUTE:
        conf_append(msg, size, "%s: a route is checked by conf_parse_route", k->name);
        return false;
    case CONF_ROUTE6:
        conf_append(msg, size, "%s: a route6 is checked by conf_parse_route6", k->name);
        return false;
    case CONF_NEIGH:
        conf_append(msg, size, "%s: a neighbour is checked by conf_parse_neigh", k->name);
        return false;
    case CONF_VLAN:
        conf_append(msg, size, "%s: a VLAN is checked by conf_parse_vlan", k->name);
        return false;
    }
    conf_append(msg, size, "%s: key has an unknown type in the table", k->name);
    return false;
}

/* config/confpriv.h: helpers shared by the generator's .c files (confkeys, confvalue, confparse,
 * confemit); not part of the generator's interface, which is confparse.h. Host code only. */
#ifndef WS_CONFPRIV_H
#define WS_CONFPRIV_H

#include "confparse.h"

/* Longest dotted quad plus NUL ("255.255.255.255"). */
#define CONF_IPV4_STR_BYTES 16
/* Longest normalised route plus NUL: "255.255.255.255/32 via 255.255.255.255". */
#define CONF_ROUTE_STR_BYTES 48
/* Longest IPv6 text form plus NUL (INET6_ADDRSTRLEN: "ffff:...:ffff:255.255.255.255"). */
#define CONF_IPV6_STR_BYTES 46
/* Longest normalised route6 plus NUL: two addresses, "/128", " via ", " dev port3". */
#define CONF_ROUTE6_STR_BYTES (2 * CONF_IPV6_STR_BYTES + 24)

/* Character classes: our own, ASCII only, so bytes >= 0x80 never reach <ctype.h> (UB there). */
static inline bool conf_is_space(char c)
{
    return c == ' ' || c == '\t';
}

static inline bool conf_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline bool conf_is_alnum(char c)
{
    return conf_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The netmask of a prefix length (0..32), host byte order. */
static inline uint32_t conf_ipv4_mask(unsigned prefix)
{
    return prefix == 0 ? 0 : UINT32_MAX << (32 - prefix);
}

/* conf_ipv6_prefix_of: a (CONF_IPV6_BYTES) with every bit after the first len (0..128) cleared,
 * into out. */
static inline void conf_ipv6_prefix_of(uint8_t *out, const uint8_t *a, unsigned len)
{
    for (unsigned i = 0; i < CONF_IPV6_BYTES; i++) {
        unsigned bits = len > 8 * i ? len - 8 * i : 0;
        out[i] = bits >= 8 ? a[i] : (uint8_t)(a[i] & (0xff00u >> bits));
    }
}

/* conf_ipv6_same_prefix: a and b agree in their first len bits (0..128). */
static inline bool conf_ipv6_same_prefix(const uint8_t *a, const uint8_t *b, unsigned len)
{
    for (unsigned i = 0; i < CONF_IPV6_BYTES && 8 * i < len; i++) {
        unsigned bits = len - 8 * i;
        uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff00u >> bits);
        if (((a[i] ^ b[i]) & mask) != 0) {
            return false;
        }
    }
    return true;
}

/* conf_ipv6_is_link_local: a lies in fe80::/10 (RFC 4291 2.5.6). */
static inline bool conf_ipv6_is_link_local(const uint8_t *a)
{
    return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* conf_append: printf at the end of the string in buf; output beyond size is cut off. */
void conf_append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* conf_append_choices: the choice words of k, separated by ", ", each between quote. */
void conf_append_choices(char *buf, size_t size, const struct conf_key *k, const char *quote);

/* conf_append_range: "min..max" of a CONF_INT key, in the base its macro is emitted in. */
void conf_append_range(char *buf, size_t size, const struct conf_key *k);

/* conf_ipv4_str: ip (host byte order) as a dotted quad in buf (CONF_IPV4_STR_BYTES); returns
 * buf, so it can be an argument of the printf that uses it. */
const char *conf_ipv4_str(uint32_t ip, char *buf);

/* conf_ipv6_str: a (CONF_IPV6_BYTES, network order) in the RFC 5952 text form (inet_ntop's) in
 * buf (CONF_IPV6_STR_BYTES); returns buf. */
const char *conf_ipv6_str(const uint8_t *a, char *buf);

/* conf_route6_str: r as "prefix/len via gateway[ dev portN]" or "prefix/len dev portN" in buf
 * (CONF_ROUTE6_STR_BYTES). Returns buf. */
const char *conf_route6_str(const struct conf_route6 *r, char *buf);

/* conf_route_str: r as "prefix/len via gateway" or "prefix/len dev portN" in buf
 * (CONF_ROUTE_STR_BYTES): the normal form of what the line said. Returns buf. */
const char *conf_route_str(const struct conf_route *r, char *buf);

/*
 * conf_check_value: validate text (trimmed, non-empty, printable ASCII) for key k, any type but
 * the lists (CONF_ROUTE, CONF_ROUTE6, CONF_NEIGH, CONF_VLAN). On success fill res's num, ip,
 * ip6, prefix, mac and peer (those the type does not use: 0, peers -1) and return true; else
 * write one message into msg and return false. Checks against other keys are confparse.c's
 * business.
 */
bool conf_check_value(const struct conf_key *k, const char *text, struct conf_value *res,
                      char *msg, size_t size);

/*
 * conf_parse_route: check one `route` value (k is the route row) on its own: syntax, prefix
 * length in k's range, no host bits, "dev" port in range. On success fill *r but its line and
 * its interface (both confparse.c's, which knows the lines and the port subnets) and
 * return true; else write one message into msg and return false.
 */
bool conf_parse_route(const struct conf_key *k, const char *text, struct conf_route *r,
                      char *msg, size_t size);

/*
 * conf_parse_route6: check one `route6` value (k is its row) on its own: the shape, the prefix
 * (length in k's range, no host bits), the gateway (a unicast address, not IPv4-mapped; a
 * link-local one only with "dev portN"), the port (no VLAN). On success fill *r but its line and,
 * for a global gateway, its interface (confparse.c's) and return true; else write one message
 * into msg and return false.
 */
bool conf_parse_route6(const struct conf_key *k, const char *text, struct conf_route6 *r,
                       char *msg, size_t size);

/*
 * conf_parse_neigh: check one `neigh.static` value on its own: "a.b.c.d aa:bb:cc:dd:ee:ff",
 * the MAC one station's. On success fill *n but its line and interface (confparse.c's) and return
 * true; else write one message into msg and return false.
 */
bool conf_parse_neigh(const struct conf_key *k, const char *text, struct conf_neigh *n,
                      char *msg, size_t size);

/*
 * conf_parse_vlan: check one `vlan` value on its own: "portN.VID a.b.c.d/len", VID 1..4094, the
 * address usable on an interface (as portN.address). On success fill *v but its line and return
 * true; else write one message into msg and return false.
 */
bool conf_parse_vlan(const struct conf_key *k, const char *text, struct conf_vlan *v, char *msg,
                     size_t size);

#endif

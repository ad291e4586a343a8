/* config/confparse.h: parser, validator and emitters for baked configuration files (host side
 * only): conf_keys[] in confkeys.c, single values in confvalue.c, files in confparse.c, header
 * and doc in confemit.c. The format and every key are documented in docs/config.md. */
#ifndef WS_CONFPARSE_H
#define WS_CONFPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONF_LINE_MAX_BYTES 256 /* longest line, without its "\n" or "\r\n" */
#define CONF_MAX_KEYS 64        /* capacity of struct conf_values; raise when the table grows */
#define CONF_MAX_ERRORS 32      /* errors kept; later ones are only counted (conf_errors.dropped) */
#define CONF_MSG_BYTES 384      /* room for a message quoting a whole over-long value */
#define CONF_MAX_CHOICES 8      /* most words one key accepts (enum values or aliases) */
#define CONF_DOC_MAX_BYTES 400  /* longest conf_key.doc (it is copied into the header's comments) */
#define CONF_PORT_COUNT 4       /* ports 0..3: the portN.* keys; size of the per-port macros */
#define CONF_MAX_ROUTES 64      /* most `route` lines; CONFIG_ROUTES holds at most this many */
#define CONF_MAX_ROUTES6 64     /* most `route6` lines; CONFIG_ROUTES6 holds at most this many */
#define CONF_MAX_NEIGHS 32      /* most `neigh.static` lines */
#define CONF_MAX_VLANS 8        /* most `vlan` lines (WS_MAX_VLANS in kernel/param.h) */
#define CONF_MAC_BYTES 6        /* an Ethernet address */
#define CONF_IPV6_BYTES 16      /* an IPv6 address */

/* How a value is checked and turned into what the header emits. */
enum conf_type {
    CONF_STRING, /* text of allowed characters; emitted as a string literal */
    CONF_INT,    /* decimal or 0x-hex integer in [min, max], multiple of step; or an alias word */
    CONF_ENUM,   /* exactly one of the choice words; emitted as that choice's number */
    CONF_BOOL,   /* "yes" or "no"; emitted as 1 or 0 */
    CONF_IPV4_PREFIX, /* interface address "a.b.c.d/len"; emitted as three macros (see macro) */
    CONF_MAC,    /* unicast Ethernet address "aa:bb:cc:dd:ee:ff"; two macros (see macro) */
    CONF_PORT_PAIRS, /* "0-1 2-3": ports joined in pairs; emitted as a peer-per-port initializer */
    CONF_ROUTE,  /* "a.b.c.d/len via e.f.g.h" or "a.b.c.d/len dev portN"; repeatable; emitted as
                  * CONFIG_NROUTES and the initializer <macro> */
    CONF_NEIGH,  /* "a.b.c.d aa:bb:cc:dd:ee:ff": a static neighbour; repeatable; emitted as
                  * CONFIG_NSTATIC_NEIGHS and the initializer <macro> */
    CONF_VLAN,   /* "portN.VID a.b.c.d/len": an 802.1Q sub-interface and its address;
                  * repeatable; emitted as CONFIG_NVLANS and the initializer <macro> */
    CONF_PCI_ADDR, /* a PCI function "[ssss:]bb:dd.f" (hex); two macros <macro>_HAS_PCI (0/1) and
                    * <macro>_PCI (segment << 16 | bus << 8 | device << 3 | function) */
    CONF_IPV6_PREFIX, /* interface address "2001:db8::1/64" (RFC 4291 2.2 text); three macros
                       * <macro>_HAS_ADDRESS6 (0/1), <macro>_ADDRESS6 (16-byte initializer) and
                       * <macro>_PREFIX6 */
    CONF_ROUTE6, /* "P/len via G", "P/len via fe80::X dev portN" or "P/len dev portN" (IPv6);
                  * repeatable; emitted as CONFIG_NROUTES6 and the initializer <macro> */
};

/* One accepted word: an enum value, or an alias of an integer ("com1" for 0x3f8). */
struct conf_choice {
    const char *word;
    int64_t num;
};

/* One row of the key table, conf_keys[]. Adding a key means adding a row there. */
struct conf_key {
    const char *name;     /* as written in the file: lowercase dotted identifier */
    enum conf_type type;
    bool required;        /* missing in the file is an error; def is then unused */
    const char *def;      /* default, as it would be written in the file; checked like one */
    bool def_from_file;   /* default is the file's basename without ".conf" (instead of def) */
    bool no_default;      /* optional and may stay unset (def unused): CONF_IPV4_PREFIX,
                           * CONF_IPV6_PREFIX and CONF_MAC, whose _HAS_ macro tells the
                           * firmware, and the lists (no line: no routes) */
    bool repeatable;      /* may be set on many lines, each adding an entry (CONF_ROUTE,
                           * CONF_ROUTE6, CONF_NEIGH and CONF_VLAN only); every other key may
                           * appear once */
    bool one_hot;         /* CONF_ENUM: emit <macro>_<WORD> (word upper-cased) as 1 for the
                           * chosen word and 0 for each other one, instead of <macro> */
    int64_t min, max;     /* CONF_INT: allowed range (aliases may lie outside it);
                           * CONF_IPV4_PREFIX, CONF_IPV6_PREFIX, CONF_ROUTE, CONF_ROUTE6,
                           * CONF_VLAN: allowed prefix lengths */
    int64_t step;         /* CONF_INT: value must be a multiple of this (0 or 1: any) */
    bool hex;             /* CONF_INT: print range and emit the macro in hex */
    bool pow2;            /* CONF_INT: value must be a power of two (ring sizes) */
    size_t min_len, max_len; /* CONF_STRING: length bounds in characters */
    const char *extra_chars; /* CONF_STRING: allowed besides A-Z a-z 0-9 */
    struct conf_choice choices[CONF_MAX_CHOICES]; /* CONF_ENUM values, CONF_INT aliases */
    const char *macro;    /* name of the emitted #define; CONF_IPV4_PREFIX: prefix of three names,
                           * <macro>_HAS_ADDRESS (0/1), <macro>_IP, <macro>_PREFIX; CONF_MAC:
                           * prefix of <macro>_HAS_MAC (0/1) and <macro>_MAC (6-byte initializer);
                           * CONF_IPV6_PREFIX: prefix of <macro>_HAS_ADDRESS6, _ADDRESS6 and
                           * _PREFIX6 (so portN.address and portN.address6 share "CONFIG_PORTN");
                           * one_hot CONF_ENUM: prefix of <macro>_<WORD> */
    const char *doc;      /* one or two sentences for docs/config.md and the header; at most
                           * CONF_DOC_MAX_BYTES */
};

extern const struct conf_key conf_keys[];
extern const size_t conf_key_count;

/* The value of one key after parsing. */
struct conf_value {
    unsigned line;        /* first line setting the key; 0 = not in the file */
    bool present;         /* holds a valid value (from the file or a default); false for a
                           * no_default key left unset; CONF_ROUTE: at least one valid line */
    int64_t num;          /* CONF_INT, CONF_ENUM, CONF_BOOL, CONF_PCI_ADDR: the number the
                           * header emits */
    uint32_t ip;          /* CONF_IPV4_PREFIX: address, host byte order (198.18.0.1: 0xc6120001) */
    uint8_t ip6[CONF_IPV6_BYTES]; /* CONF_IPV6_PREFIX: the address, network byte order */
    unsigned prefix;      /* CONF_IPV4_PREFIX, CONF_IPV6_PREFIX: the prefix length */
    uint8_t mac[CONF_MAC_BYTES]; /* CONF_MAC: the address, first octet first */
    int8_t peer[CONF_PORT_COUNT]; /* CONF_PORT_PAIRS: the port each port forwards to, -1 none */
    char text[CONF_LINE_MAX_BYTES + 1]; /* the value as written (trimmed), or the default;
                                         * CONF_ROUTE: that of the first valid line */
};

/*
 * Interfaces are numbered as the firmware numbers them (net/iface.h): port N is interface N,
 * the j-th `vlan` line (file order) is interface CONF_PORT_COUNT + j.
 */

/* One `route` line. */
struct conf_route {
    unsigned line;        /* the line it was set on */
    uint32_t prefix;      /* destination network, host byte order, no host bits set */
    unsigned len;         /* destination prefix length, 0..32 */
    bool via;             /* true: "via gateway"; false: "dev portN[.VID]" (directly connected) */
    uint32_t gateway;     /* via: next-hop address, host byte order; dev: 0 */
    unsigned dev_port;    /* dev: N of "dev portN[.VID]" */
    unsigned dev_vid;     /* dev: the VLAN ID of "dev portN.VID", 0 for "dev portN" */
    unsigned iface;       /* egress interface; via: the one whose subnet holds the gateway,
                           * dev portN.VID: that sub-interface; found once the file is read */
};

/* One `route6` line. Only ports carry IPv6 (no VLAN sub-interfaces), so iface is a port. */
struct conf_route6 {
    unsigned line;
    uint8_t prefix[CONF_IPV6_BYTES];  /* destination, network byte order, no host bits set */
    unsigned len;                     /* destination prefix length, 0..128 */
    bool via;                         /* a gateway was given */
    uint8_t gateway[CONF_IPV6_BYTES]; /* via: the next hop (global, unique-local or link-local);
                                       * else all zero */
    bool dev;                         /* "dev portN" was given (needed with a link-local
                                       * gateway, and the whole route without a gateway) */
    unsigned dev_port;                /* dev: N */
    unsigned iface;                   /* egress port: dev's, or the one whose address6 prefix
                                       * holds the gateway, found once the file is read */
};

/* One `neigh.static` line. */
struct conf_neigh {
    unsigned line;
    uint32_t ip;                 /* host byte order */
    uint8_t mac[CONF_MAC_BYTES];
    unsigned iface;              /* the interface whose subnet holds ip, found at the file's end */
};

/* One `vlan` line: an 802.1Q sub-interface of a port, with its own address. */
struct conf_vlan {
    unsigned line;
    unsigned port;    /* 0..CONF_PORT_COUNT-1 */
    unsigned vid;     /* 1..4094 */
    uint32_t ip;      /* host byte order */
    unsigned prefix;  /* in the key's range, like portN.address */
};

/* All values of one file, indexed like conf_keys[], plus the lists repeatable keys build. */
struct conf_values {
    const char *file_name; /* as passed to conf_parse; named in the header's comment */
    struct conf_value val[CONF_MAX_KEYS];
    unsigned nroutes;      /* entries used in routes[] */
    struct conf_route routes[CONF_MAX_ROUTES]; /* the `route` lines, in file order */
    unsigned nneighs;      /* entries used in neighs[] */
    struct conf_neigh neighs[CONF_MAX_NEIGHS]; /* the `neigh.static` lines, in file order */
    unsigned nvlans;       /* entries used in vlans[] */
    struct conf_vlan vlans[CONF_MAX_VLANS]; /* the `vlan` lines, in file order */
    unsigned nroutes6;     /* entries used in routes6[] */
    struct conf_route6 routes6[CONF_MAX_ROUTES6]; /* the `route6` lines, in file order */
};

/* One problem found in the file. line 0 means "the file as a whole" (a missing key). */
struct conf_error {
    const char *file;
    unsigned line;
    char msg[CONF_MSG_BYTES];
};

/* The errors of one file, sorted by line (line 0 last), in the order found within a line. */
struct conf_errors {
    unsigned count;       /* entries used in list[] */
    unsigned dropped;     /* errors found beyond CONF_MAX_ERRORS, not stored: those that sort
                           * last are the ones dropped */
    struct conf_error list[CONF_MAX_ERRORS];
};

/*
 * conf_parse: parse and validate a whole configuration file held in memory.
 * file_name: names the file in errors and the header and gives the default `name`; it must
 *   outlive out and errs (they point to it). text/len: the file's bytes, not NUL-terminated.
 * out: filled with every key's value (defaults included); usable only if 0 is returned.
 * errs: cleared, then gets every error found, sorted by line, line 0 (the file as a whole:
 *   missing keys) last. Checks between two lines (overlapping port subnets or IPv6 prefixes,
 *   duplicate routes) are reported on the later line. Checks that need the whole file are made
 *   at its end: each route's and route6's gateway, port and destination against the port
 *   addresses (reported on the route's line), the next-hop MACs that wire mode with MAC
 *   rewriting needs (missing: line 0), and the address6 and router mode that each
 *   portN.advertise6 = yes needs (reported on its line).
 * Returns 0 if the file is valid, WS_ERR_INVAL (kernel/err.h) if errs holds at least one error.
 * Pure: no I/O, no allocation, no global state.
 */
int conf_parse(const char *file_name, const char *text, size_t len, struct conf_values *out,
               struct conf_errors *errs);

/* conf_key_find: the table row of a key name, or NULL if there is no such key. */
const struct conf_key *conf_key_find(const char *name);

/* conf_get: the value of a key in a parsed file, or NULL if there is no such key. */
const struct conf_value *conf_get(const struct conf_values *v, const char *name);

/*
 * conf_emit_header: write the C header for a valid parse (conf_parse returned 0) to f: the
 * macros of each key in table order (see conf_key.macro), then the per-port initializers:
 * CONFIG_PORT_ADDRESSES ({ has_address, ip, prefix } per port), CONFIG_PORT_ADDRESSES6
 * ({ has_address6, { 16 bytes }, prefix6 } per port), CONFIG_PORT_NEXT_HOP_MACS
 * ({ has_mac, { 6 bytes } } per port) and CONFIG_PORT_PCI, port0 first, CONF_PORT_COUNT
 * entries each.
 * Returns 0, or WS_ERR_GENERIC if writing to f failed.
 */
int conf_emit_header(const struct conf_values *v, FILE *f);

/*
 * conf_emit_doc: write the markdown key reference table (the generated part of
 * docs/config.md) to f. Returns 0, or WS_ERR_GENERIC if writing to f failed.
 */
int conf_emit_doc(FILE *f);

#endif

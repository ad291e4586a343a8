/* config/confparse.c: the key table, the parser/validator and the header and doc emitters for
 * baked configuration files. Host code: runs at build time inside genconfig and unit tests. */
#include "confparse.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

/* Relative paths so that both genconfig (-Iconfig only) and the unit tests find them. */
#include "../kernel/err.h"
#include "../kernel/param.h"

/*
 * One port's address key: portN.address -> CONFIG_PORTN_HAS_ADDRESS, _IP and _PREFIX. Prefixes
 * /31 and /32 are refused: they have no network and broadcast address to check against, and a
 * point-to-point link or host route is not what a port address here is for.
 */
#define CONF_PORT_ADDRESS_KEY(n)                                                                   \
    {                                                                                              \
        .name = "port" #n ".address",                                                              \
        .type = CONF_IPV4_PREFIX,                                                                  \
        .no_default = true,                                                                        \
        .min = 8,                                                                                  \
        .max = 30,                                                                                 \
        .macro = "CONFIG_PORT" #n,                                                                 \
        .doc = "IPv4 address and prefix length of port " #n ", e.g. 198.18." #n ".1/24. Unset: "  \
               "the port has no address.",                                                         \
    }

/*
 * The one key table. A new key is one row here (and a line in default.conf and test.conf);
 * parsing, defaults, the header and docs/config.md all follow from it. Keep doc strings free
 * of '|' (they become markdown table cells).
 */
const struct conf_key conf_keys[] = {
    {
        .name = "name",
        .type = CONF_STRING,
        .def_from_file = true,
        .min_len = 1,
        .max_len = 32,
        .extra_chars = "_.-",
        .macro = "CONFIG_NAME",
        .doc = "Configuration name shown in the boot banner.",
    },
    {
        .name = "console.port",
        .type = CONF_INT,
        .required = true,
        .min = 0x100,
        .max = 0xfff8,
        .step = 8, /* a 16550 decodes 8 consecutive ports */
        .hex = true,
        .choices = { { "com1", 0x3f8 }, { "com2", 0x2f8 }, { "com3", 0x3e8 }, { "com4", 0x2e8 } },
        .macro = "CONFIG_CONSOLE_PORT",
        .doc = "I/O port base of the 16550-compatible UART used as the serial console.",
    },
    {
        .name = "console.baud",
        .type = CONF_ENUM,
        .required = true,
        .choices = { { "9600", 9600 },
                     { "19200", 19200 },
                     { "38400", 38400 },
                     { "57600", 57600 },
                     { "115200", 115200 } },
        .macro = "CONFIG_CONSOLE_BAUD",
        .doc = "Serial console speed in bit/s (always 8 data bits, no parity, 1 stop bit).",
    },
    {
        .name = "cores",
        .type = CONF_INT,
        .required = true,
        .min = 1,
        .max = WS_MAX_CPUS,
        /* 0, not WS_MAX_CPUS: "all" must keep meaning all if that limit is raised */
        .choices = { { "all", 0 } },
        .macro = "CONFIG_MAX_CORES",
        .doc = "Most cores to bring up, the boot core included; further cores stay parked. "
               "'all' is emitted as 0 and means every core found, up to WS_MAX_CPUS.",
    },
    {
        .name = "panic",
        .type = CONF_ENUM,
        .required = true,
        .choices = { { "halt", 0 }, { "reboot", 1 } },
        .macro = "CONFIG_PANIC_REBOOT",
        .doc = "What a panic does after printing its report on the console: halt every core, "
               "or reset the machine.",
    },
    {
        .name = "test.fault_command",
        .type = CONF_BOOL,
        .def = "no",
        .macro = "CONFIG_TEST_FAULT_COMMAND",
        .doc = "Compile in a console command that deliberately faults, so system tests can "
               "check the exception report. Never enable it in production images.",
    },
    /* CONF_PORT_COUNT of them, in port order: CONFIG_PORT_ADDRESSES is built from these. */
    CONF_PORT_ADDRESS_KEY(0),
    CONF_PORT_ADDRESS_KEY(1),
    CONF_PORT_ADDRESS_KEY(2),
    CONF_PORT_ADDRESS_KEY(3),
    {
        .name = "nic.rx_descs",
        .type = CONF_INT,
        .def = "512",
        .min = 64,
        .max = 4096,
        .pow2 = true, /* ring index arithmetic masks instead of dividing */
        .macro = "CONFIG_NIC_RX_DESCS",
        .doc = "Descriptors in each RX ring (one ring per port and core), like `ethtool -G rx`.",
    },
    {
        .name = "nic.tx_descs",
        .type = CONF_INT,
        .def = "512",
        .min = 64,
        .max = 4096,
        .pow2 = true,
        .macro = "CONFIG_NIC_TX_DESCS",
        .doc = "Descriptors in each TX ring (one ring per port and core), like `ethtool -G tx`.",
    },
    {
        .name = "nic.burst",
        .type = CONF_INT,
        .def = "32",
        .min = 1,
        .max = 64,
        .macro = "CONFIG_NIC_BURST",
        .doc = "Most packets one RX or TX burst moves: the batch size of each core's poll loop.",
    },
    {
        .name = "nic.rx_usecs",
        .type = CONF_INT,
        .def = "50",
        .min = 0,
        .max = 10000,
        .macro = "CONFIG_NIC_RX_USECS",
        .doc = "Interrupt throttling interval in microseconds, like `ethtool -C rx-usecs`: at most "
               "one interrupt per vector per interval; 0 = no throttling. Only matters when cores "
               "sleep (poll.mode = adaptive).",
    },
    {
        .name = "nic.pool_buffers",
        .type = CONF_INT,
        .def = "4096",
        .min = 256,
        .max = 65536,
        .macro = "CONFIG_NIC_POOL_BUFFERS",
        .doc = "Packet buffers (2 KiB each) in each core's pool. Each core needs at least "
               "`ports * rx_descs + tx_descs + burst`; the firmware checks at boot.",
    },
    {
        .name = "poll.mode",
        .type = CONF_ENUM,
        .def = "adaptive",
        .choices = { { "busy", 0 }, { "adaptive", 1 } },
        .macro = "CONFIG_POLL_ADAPTIVE",
        .doc = "busy: each core polls its queues forever. adaptive: after poll.idle_us without "
               "work the core arms its MSI-X vectors and halts until an interrupt.",
    },
    {
        .name = "poll.idle_us",
        .type = CONF_INT,
        .def = "100",
        .min = 1,
        .max = 1000000,
        .macro = "CONFIG_POLL_IDLE_US",
        .doc = "Idle time in microseconds before an adaptive core halts; unused when poll.mode "
               "= busy.",
    },
};

const size_t conf_key_count = sizeof(conf_keys) / sizeof(conf_keys[0]);

_Static_assert(sizeof(conf_keys) / sizeof(conf_keys[0]) <= CONF_MAX_KEYS,
               "raise CONF_MAX_KEYS in confparse.h");

/* State of one conf_parse call. */
struct conf_parser {
    const char *file;
    struct conf_values *out;
    struct conf_errors *errs;
};

/* Character classes: our own, ASCII only, so bytes >= 0x80 never reach <ctype.h> (UB there). */
static bool conf_is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool conf_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool conf_is_alnum(char c)
{
    return conf_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void conf_append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void conf_error_add(struct conf_parser *p, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* conf_append: printf at the end of the string in buf; output beyond size is cut off. */
static void conf_append(char *buf, size_t size, const char *fmt, ...)
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

/* conf_error_add: record one error; once the list is full, only count it. */
static void conf_error_add(struct conf_parser *p, unsigned line, const char *fmt, ...)
{
    struct conf_error *e;
    va_list ap;

    if (p->errs->count >= CONF_MAX_ERRORS) {
        p->errs->dropped++;
        return;
    }
    e = &p->errs->list[p->errs->count++];
    e->file = p->file;
    e->line = line;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
}

/* Index of a key in conf_keys[], or -1. */
static int conf_key_index(const char *name)
{
    for (size_t i = 0; i < conf_key_count; i++) {
        if (strcmp(conf_keys[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const struct conf_key *conf_key_find(const char *name)
{
    int i = conf_key_index(name);

    return i < 0 ? NULL : &conf_keys[i];
}

const struct conf_value *conf_get(const struct conf_values *v, const char *name)
{
    int i = conf_key_index(name);

    return i < 0 ? NULL : &v->val[i];
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

/* Append the choice words, separated by ", ", each between quote. */
static void conf_append_choices(char *buf, size_t size, const struct conf_key *k,
                                const char *quote)
{
    for (size_t i = 0; i < CONF_MAX_CHOICES && k->choices[i].word != NULL; i++) {
        conf_append(buf, size, "%s%s%s%s", i ? ", " : "", quote, k->choices[i].word, quote);
    }
}

/* Append "min..max" of a CONF_INT key, in the base its macro is emitted in. */
static void conf_append_range(char *buf, size_t size, const struct conf_key *k)
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

/* The netmask of a prefix length (0..32), host byte order. */
static uint32_t conf_ipv4_mask(unsigned prefix)
{
    return prefix == 0 ? 0 : UINT32_MAX << (32 - prefix);
}

/* Write an address as a dotted quad into buf, which holds at least 16 bytes; returns buf. */
static const char *conf_ipv4_str(uint32_t ip, char *buf)
{
    snprintf(buf, 16, "%u.%u.%u.%u", (unsigned)(ip >> 24), (unsigned)(ip >> 16) & 0xff,
             (unsigned)(ip >> 8) & 0xff, (unsigned)ip & 0xff);
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

/*
 * conf_parse_ipv4_prefix: "a.b.c.d/len", strictly: four decimal octets 0..255 without leading
 * zeros, '.' between them, '/', a decimal length in k's [min, max]; nothing else (no sign, no
 * space, no hex). Syntax only: which addresses make sense is conf_check_ipv4_use's business.
 */
static bool conf_parse_ipv4_prefix(const struct conf_key *k, const char *text, uint32_t *ip,
                                   unsigned *prefix, char *msg, size_t size)
{
    const char *s = text;
    unsigned v;
    size_t n;

    if (strchr(text, '/') == NULL) {
        conf_append(msg, size, "%s: '%s' has no prefix length: expected a.b.c.d/len, len "
                    "%" PRId64 "..%" PRId64, k->name, text, k->min, k->max);
        return false;
    }
    *ip = 0;
    for (int i = 0; i < 4; i++, s += n + 1) {
        n = strspn(s, "0123456789");
        if (n == 0 || s[n] != (i < 3 ? '.' : '/')) {
            conf_append(msg, size, "%s: '%s' is not an IPv4 address with prefix length: expected "
                        "a.b.c.d/len, four decimal octets 0..255", k->name, text);
            return false;
        }
        if (!conf_parse_field(s, n, &v)) {
            conf_append(msg, size, "%s: '%s': octet '%.*s' has a leading zero (octal or "
                        "decimal?): write it without", k->name, text, (int)n, s);
            return false;
        }
        if (v > 255) {
            conf_append(msg, size, "%s: '%s': octet '%.*s' out of range 0..255", k->name, text,
                        (int)n, s);
            return false;
        }
        *ip = *ip << 8 | v;
    }
    n = strspn(s, "0123456789");
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

/*
 * conf_check_value: validate text (trimmed, non-empty, printable ASCII) for key k. On success
 * set res->num, ->ip and ->prefix (those the type does not use: 0) and return true; else write
 * one message into msg and return false. Checks against other keys are conf_set's business.
 */
static bool conf_check_value(const struct conf_key *k, const char *text, struct conf_value *res,
                             char *msg, size_t size)
{
    const struct conf_choice *c;
    int64_t *num = &res->num;

    msg[0] = '\0';
    res->num = 0;
    res->ip = 0;
    res->prefix = 0;
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
    }
    conf_append(msg, size, "%s: key has an unknown type in the table", k->name);
    return false;
}

/* Store a checked value (res, from conf_check_value) into a key's slot. */
static void conf_store(struct conf_value *val, const char *text, const struct conf_value *res)
{
    val->present = true;
    val->num = res->num;
    val->ip = res->ip;
    val->prefix = res->prefix;
    snprintf(val->text, sizeof(val->text), "%s", text);
}

/*
 * conf_check_subnets: the subnet of a new CONF_IPV4_PREFIX value (for key i, from line) must
 * not overlap that of any address already set: two ports in one subnet would make the route
 * to it ambiguous. Called as lines are read, so the error lands on the later line.
 */
static bool conf_check_subnets(struct conf_parser *p, unsigned line, size_t i,
                               const struct conf_value *res)
{
    for (size_t j = 0; j < conf_key_count; j++) {
        const struct conf_value *o = &p->out->val[j];
        unsigned common = res->prefix < o->prefix ? res->prefix : o->prefix;
        char a[16], b[16];

        if (j == i || conf_keys[j].type != CONF_IPV4_PREFIX || !o->present ||
            ((res->ip ^ o->ip) & conf_ipv4_mask(common)) != 0) {
            continue;
        }
        if (res->prefix == o->prefix) {
            conf_error_add(p, line, "%s: %s/%u is in the same subnet %s/%u as %s (line %u)",
                           conf_keys[i].name, conf_ipv4_str(res->ip, a), res->prefix,
                           conf_ipv4_str(o->ip & conf_ipv4_mask(o->prefix), b), o->prefix,
                           conf_keys[j].name, o->line);
        } else {
            conf_error_add(p, line, "%s: subnet %s/%u overlaps subnet %s/%u of %s (line %u)",
                           conf_keys[i].name,
                           conf_ipv4_str(res->ip & conf_ipv4_mask(res->prefix), a), res->prefix,
                           conf_ipv4_str(o->ip & conf_ipv4_mask(o->prefix), b), o->prefix,
                           conf_keys[j].name, o->line);
        }
        return false;
    }
    return true;
}

/* Handle one "key = value" line with key and value already trimmed. */
static void conf_set(struct conf_parser *p, unsigned line, const char *key, const char *value)
{
    char msg[CONF_MSG_BYTES];
    struct conf_value res;
    struct conf_value *val;
    int i;

    if (key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_.")] != '\0') {
        conf_error_add(p, line, "invalid key '%s': keys use only a-z 0-9 _ and .", key);
        return;
    }
    i = conf_key_index(key);
    if (i < 0) {
        conf_error_add(p, line, "unknown key '%s'", key);
        return;
    }
    val = &p->out->val[i];
    if (val->line != 0) {
        conf_error_add(p, line, "duplicate key '%s' (first set on line %u)", key, val->line);
        return;
    }
    /* Remember the line even if the value is bad, so a repeat still counts as a duplicate. */
    val->line = line;
    if (value[0] == '\0') {
        conf_error_add(p, line, "%s: empty value", key);
        return;
    }
    if (!conf_check_value(&conf_keys[i], value, &res, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    if (conf_keys[i].type == CONF_IPV4_PREFIX && !conf_check_subnets(p, line, (size_t)i, &res)) {
        return;
    }
    conf_store(val, value, &res);
}

/*
 * Reject bytes no key or comment may hold: NUL and other control characters (tab excepted).
 * A NUL usually means a binary or UTF-16 file was given. Returns false after one error.
 */
static bool conf_check_control(struct conf_parser *p, unsigned line, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            conf_error_add(p, line, "control character 0x%02x at column %zu", c, i + 1);
            return false;
        }
    }
    return true;
}

/* Reject bytes above 0x7f outside comments: no key or value accepts them. */
static bool conf_check_ascii(struct conf_parser *p, unsigned line, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c >= 0x80) {
            conf_error_add(p, line, "non-ASCII byte 0x%02x at column %zu (only comments may "
                                    "hold UTF-8)", c, i + 1);
            return false;
        }
    }
    return true;
}

/* Length of the line without its comment: '#' at the start or after a space or tab. */
static size_t conf_strip_comment(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#' && (i == 0 || conf_is_space(s[i - 1]))) {
            return i;
        }
    }
    return n;
}

/* Copy s[from..to) without surrounding spaces and tabs into out (room for the line + NUL). */
static void conf_copy_trimmed(char *out, const char *s, size_t from, size_t to)
{
    while (from < to && conf_is_space(s[from])) {
        from++;
    }
    while (to > from && conf_is_space(s[to - 1])) {
        to--;
    }
    memcpy(out, s + from, to - from);
    out[to - from] = '\0';
}

/* Parse one line (s, n bytes, without its '\n'). Reports at most one error per line. */
static void conf_parse_line(struct conf_parser *p, unsigned line, const char *s, size_t n)
{
    char key[CONF_LINE_MAX_BYTES + 1];
    char value[CONF_LINE_MAX_BYTES + 1];
    const char *eq;

    if (n > 0 && s[n - 1] == '\r') {
        n--; /* a CRLF file: the '\r' belongs to the line ending */
    }
    if (n > CONF_LINE_MAX_BYTES) {
        conf_error_add(p, line, "line too long: %zu bytes, at most %d", n, CONF_LINE_MAX_BYTES);
        return;
    }
    if (!conf_check_control(p, line, s, n)) {
        return;
    }
    n = conf_strip_comment(s, n);
    if (!conf_check_ascii(p, line, s, n)) {
        return;
    }
    conf_copy_trimmed(key, s, 0, n);
    if (key[0] == '\0') {
        return; /* blank or comment-only line */
    }
    eq = memchr(s, '=', n);
    if (eq == NULL) {
        conf_error_add(p, line, "expected 'key = value', found no '=' in '%s'", key);
        return;
    }
    conf_copy_trimmed(key, s, 0, (size_t)(eq - s));
    conf_copy_trimmed(value, s, (size_t)(eq - s) + 1, n);
    if (key[0] == '\0') {
        conf_error_add(p, line, "empty key before '='");
        return;
    }
    conf_set(p, line, key, value);
}

/* The default `name`: the file's basename without ".conf", cut to fit conf_value.text. */
static void conf_name_from_file(const char *file, char *out, size_t size)
{
    const char *base = strrchr(file, '/');
    size_t len;

    base = base == NULL ? file : base + 1;
    len = strlen(base);
    if (len >= 5 && strcmp(base + len - 5, ".conf") == 0) {
        len -= 5;
    }
    snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), base);
}

/* Give every key not set in the file its default; report required keys that are missing. */
static void conf_apply_defaults(struct conf_parser *p)
{
    char text[CONF_LINE_MAX_BYTES + 1];
    char msg[CONF_MSG_BYTES];
    struct conf_value res;

    for (size_t i = 0; i < conf_key_count; i++) {
        const struct conf_key *k = &conf_keys[i];
        struct conf_value *val = &p->out->val[i];

        if (val->line != 0) {
            continue; /* set in the file; any problem is already reported */
        }
        if (k->required) {
            conf_error_add(p, 0, "missing required key '%s'", k->name);
            continue;
        }
        if (k->no_default) {
            continue; /* stays unset: present false, the header says so */
        }
        if (k->def_from_file) {
            conf_name_from_file(p->file, text, sizeof(text));
        } else {
            snprintf(text, sizeof(text), "%s", k->def != NULL ? k->def : "");
        }
        if (!conf_check_value(k, text, &res, msg, sizeof(msg))) {
            conf_error_add(p, 0, "%s (the default%s; set '%s' in the file)", msg,
                           k->def_from_file ? " comes from the file name" : " is invalid",
                           k->name);
            continue;
        }
        conf_store(val, text, &res);
    }
}

int conf_parse(const char *file_name, const char *text, size_t len, struct conf_values *out,
               struct conf_errors *errs)
{
    struct conf_parser p = { .file = file_name, .out = out, .errs = errs };
    unsigned line = 0;
    size_t pos = 0;

    memset(out, 0, sizeof(*out));
    memset(errs, 0, sizeof(*errs));
    out->file_name = file_name;
    while (pos < len) {
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - start) : len - pos;

        conf_parse_line(&p, ++line, start, n);
        pos += n + (nl != NULL ? 1 : 0);
    }
    conf_apply_defaults(&p);
    return errs->count + errs->dropped == 0 ? 0 : WS_ERR_INVAL;
}

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

/* Print one key's comment and #define (three for CONF_IPV4_PREFIX). */
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
    if (k->type == CONF_IPV4_PREFIX) {
        fprintf(f, "#define %s_HAS_ADDRESS %d\n", k->macro, val->present ? 1 : 0);
        fprintf(f, "#define %s_IP 0x%08" PRIx32 "u\n", k->macro, val->ip);
        fprintf(f, "#define %s_PREFIX %u\n\n", k->macro, val->prefix);
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
        conf_put_define(f, &conf_keys[i], &v->val[i]);
    }
    conf_put_port_addresses(f, v);
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
        conf_append_doc_choices(buf, size, k);
        break;
    case CONF_BOOL:
        conf_append(buf, size, "`yes` (1), `no` (0)");
        break;
    case CONF_IPV4_PREFIX:
        conf_append(buf, size, "`a.b.c.d/len`, len %" PRId64 "..%" PRId64 "; not in 0/8, 127/8, "
                    "224/4 or 240/4, not the network or broadcast address of its subnet, and no "
                    "two ports' subnets may overlap", k->min, k->max);
        break;
    }
}

/* The "Macro" cell of the doc table for one key. */
static void conf_doc_macros(char *buf, size_t size, const struct conf_key *k)
{
    buf[0] = '\0';
    if (k->type == CONF_IPV4_PREFIX) {
        conf_append(buf, size, "`%s_HAS_ADDRESS`, `%s_IP`, `%s_PREFIX`", k->macro, k->macro,
                    k->macro);
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

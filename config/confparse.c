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
 * set *num (CONF_STRING: 0) and return true; else write one message into msg and return false.
 */
static bool conf_check_value(const struct conf_key *k, const char *text, int64_t *num, char *msg,
                             size_t size)
{
    const struct conf_choice *c;

    msg[0] = '\0';
    *num = 0;
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
    }
    conf_append(msg, size, "%s: key has an unknown type in the table", k->name);
    return false;
}

/* Store a checked value for key i. */
static void conf_store(struct conf_value *val, const char *text, int64_t num)
{
    val->present = true;
    val->num = num;
    snprintf(val->text, sizeof(val->text), "%s", text);
}

/* Handle one "key = value" line with key and value already trimmed. */
static void conf_set(struct conf_parser *p, unsigned line, const char *key, const char *value)
{
    char msg[CONF_MSG_BYTES];
    struct conf_value *val;
    int64_t num;
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
    if (!conf_check_value(&conf_keys[i], value, &num, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    conf_store(val, value, num);
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
    int64_t num;

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
        if (k->def_from_file) {
            conf_name_from_file(p->file, text, sizeof(text));
        } else {
            snprintf(text, sizeof(text), "%s", k->def != NULL ? k->def : "");
        }
        if (!conf_check_value(k, text, &num, msg, sizeof(msg))) {
            conf_error_add(p, 0, "%s (the default%s; set '%s' in the file)", msg,
                           k->def_from_file ? " comes from the file name" : " is invalid",
                           k->name);
            continue;
        }
        conf_store(val, text, num);
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

/* Print one key's comment and #define. */
static void conf_put_define(FILE *f, const struct conf_key *k, const struct conf_value *val)
{
    char origin[CONF_MSG_BYTES] = "";

    if (val->line != 0) {
        conf_append(origin, sizeof(origin), "%s = %s (line %u). %s", k->name, val->text,
                    val->line, k->doc);
    } else {
        conf_append(origin, sizeof(origin), "%s = %s (default). %s", k->name, val->text, k->doc);
    }
    conf_put_comment(f, origin);
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
    }
}

int conf_emit_doc(FILE *f)
{
    char values[CONF_MSG_BYTES];

    fputs("| Key | Required | Default | Values | Macro | Meaning |\n"
          "|-----|----------|---------|--------|-------|---------|\n",
          f);
    for (size_t i = 0; i < conf_key_count; i++) {
        const struct conf_key *k = &conf_keys[i];

        conf_doc_values(values, sizeof(values), k);
        fprintf(f, "| `%s` | %s | ", k->name, k->required ? "yes" : "no");
        if (k->required) {
            fputs("-", f);
        } else if (k->def_from_file) {
            fputs("file name without `.conf`", f);
        } else {
            fprintf(f, "`%s`", k->def);
        }
        fprintf(f, " | %s | `%s` | %s |\n", values, k->macro, k->doc);
    }
    return ferror(f) ? WS_ERR_GENERIC : 0;
}

/* tests/unit/test_config.c: cmocka tests of the configuration parser, validator and emitters
 * (config/confparse.c), plus checks that default.conf, test.conf and docs/config.md agree with
 * the key table. Reads those files relative to the repository root (see repo_path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h> /* inet_pton: the tests state IPv6 addresses as text */
#include <cmocka.h>

#include "confparse.h"
#include "err.h"

/* The required keys with valid values; tests add or break lines around them. */
#define REQUIRED_KEYS                                                                              \
    "console.port = com1\n"                                                                        \
    "console.baud = 115200\n"                                                                      \
    "cores = all\n"                                                                                \
    "panic = halt\n"

/* Parsed results: static because each is ~12 KiB; conf_parse resets both on every call. */
static struct conf_values vals;
static struct conf_errors errs;

static int parse_bytes(const char *text, size_t len)
{
    return conf_parse("config/t.conf", text, len, &vals, &errs);
}

static int parse(const char *text)
{
    return parse_bytes(text, strlen(text));
}

static int64_t num_of(const char *key)
{
    const struct conf_value *v = conf_get(&vals, key);

    assert_non_null(v);
    assert_true(v->present);
    return v->num;
}

/* Assert error i is on line and its message is exactly msg. */
static void assert_error(unsigned i, unsigned line, const char *msg)
{
    assert_true(i < errs.count);
    assert_string_equal(errs.list[i].file, "config/t.conf");
    assert_int_equal(errs.list[i].line, line);
    assert_string_equal(errs.list[i].msg, msg);
}

/* Assert error i is on line and its message contains part. */
static void assert_error_has(unsigned i, unsigned line, const char *part)
{
    assert_true(i < errs.count);
    assert_int_equal(errs.list[i].line, line);
    if (strstr(errs.list[i].msg, part) == NULL) {
        fail_msg("error '%s' lacks '%s'", errs.list[i].msg, part);
    }
}

/*
 * Parse line as line 1, followed by the required keys other than its own; expect exactly one
 * error: msg, on line 1.
 */
static void assert_one_bad_line(const char *line, const char *msg)
{
    static const char *const required[] = { "console.port = com1", "console.baud = 115200",
                                            "cores = all", "panic = halt" };
    size_t key_len = strcspn(line, " \t=");
    char text[1024];

    snprintf(text, sizeof(text), "%s\n", line);
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (strncmp(required[i], line, key_len) != 0 || required[i][key_len] != ' ') {
            strcat(text, required[i]);
            strcat(text, "\n");
        }
    }
    assert_int_equal(parse(text), WS_ERR_INVAL);
    if (errs.count != 1) {
        fail_msg("%u errors for '%s', first: '%s'", errs.count, line, errs.list[0].msg);
    }
    assert_error(0, 1, msg);
}

/*
 * repo_path: path of a file in the repository. __FILE__ is this file's path as given to the
 * compiler, so the prefix before "tests/unit/test_config.c" is the repository root (empty when
 * compiled from the root with a relative path: then the test must run from the root too).
 */
static void repo_path(char *out, size_t size, const char *rel)
{
    static const char self_rel[] = "tests/unit/test_config.c";
    const char *self = __FILE__;
    size_t n = strlen(self);
    size_t s = strlen(self_rel);
    size_t prefix = n >= s && strcmp(self + n - s, self_rel) == 0 ? n - s : 0;

    snprintf(out, size, "%.*s%s", (int)prefix, self, rel);
}

/* Read a repository file into a malloc'd NUL-terminated buffer; fails the test if missing. */
static char *read_repo_file(const char *rel, size_t *len)
{
    char path[4096];
    char *buf;
    FILE *f;
    long size;

    repo_path(path, sizeof(path), rel);
    f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("cannot open %s (run the test from the repository root)", path);
    }
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    *len = fread(buf, 1, (size_t)size, f);
    assert_int_equal(*len, (size_t)size);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* Run an emitter into a malloc'd string. */
static char *emit_to_string(int (*emit)(FILE *f))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(emit(f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static int emit_header_of_vals(FILE *f)
{
    return conf_emit_header(&vals, f);
}

static void test_valid_file_values(void **state)
{
    (void)state;
    assert_int_equal(parse("name = lab-1.x\n"
                           "console.port = 0x2f8\n"
                           "console.baud = 9600\n"
                           "cores = 4\n"
                           "panic = reboot\n"
                           "test.fault_command = yes\n"),
                     0);
    assert_int_equal(errs.count, 0);
    assert_string_equal(conf_get(&vals, "name")->text, "lab-1.x");
    assert_int_equal(num_of("console.port"), 0x2f8);
    assert_int_equal(num_of("console.baud"), 9600);
    assert_int_equal(num_of("cores"), 4);
    assert_int_equal(num_of("panic"), 1);
    assert_int_equal(num_of("test.fault_command"), 1);
    assert_int_equal(conf_get(&vals, "cores")->line, 4);
    assert_null(conf_get(&vals, "no.such.key"));
}

static void test_aliases_and_defaults(void **state)
{
    static const struct {
        const char *word;
        int64_t port;
    } coms[] = { { "com1", 0x3f8 }, { "com2", 0x2f8 }, { "com3", 0x3e8 }, { "com4", 0x2e8 } };
    char text[256];

    (void)state;
    for (size_t i = 0; i < sizeof(coms) / sizeof(coms[0]); i++) {
        snprintf(text, sizeof(text),
                 "console.port = %s\nconsole.baud = 57600\ncores = all\npanic = halt\n",
                 coms[i].word);
        assert_int_equal(parse(text), 0);
        assert_int_equal(num_of("console.port"), coms[i].port);
    }
    assert_int_equal(num_of("cores"), 0); /* 'all' */
    /* Optional keys: name from the file name, test.fault_command = no. */
    assert_string_equal(conf_get(&vals, "name")->text, "t");
    assert_int_equal(conf_get(&vals, "name")->line, 0);
    assert_int_equal(num_of("test.fault_command"), 0);
    assert_int_equal(conf_parse("/a/b/lab.conf", text, strlen(text), &vals, &errs), 0);
    assert_string_equal(conf_get(&vals, "name")->text, "lab");
    assert_int_equal(conf_parse("plain", text, strlen(text), &vals, &errs), 0);
    assert_string_equal(conf_get(&vals, "name")->text, "plain");
}

static void test_number_edges(void **state)
{
    (void)state;
    assert_int_equal(parse("console.port = 0X100\nconsole.baud = 9600\ncores = 64\npanic = halt\n"),
                     0);
    assert_int_equal(num_of("console.port"), 0x100);
    assert_int_equal(num_of("cores"), 64);
    assert_int_equal(parse("console.port = 0xFFF8\nconsole.baud = 9600\ncores = 1\npanic = halt\n"),
                     0);
    assert_int_equal(num_of("console.port"), 0xfff8);
    assert_int_equal(num_of("cores"), 1);
}

static void test_unknown_key(void **state)
{
    (void)state;
    assert_one_bad_line("consol.port = com2", "unknown key 'consol.port'");
    assert_one_bad_line("Cores = 2", "invalid key 'Cores': keys use only a-z 0-9 _ and .");
    assert_one_bad_line("console port = 2", "invalid key 'console port': keys use only a-z 0-9 _ "
                                            "and .");
}

static void test_bad_numbers(void **state)
{
    (void)state;
    assert_one_bad_line("cores = 0", "cores: '0' out of range 1..64 (or 'all')");
    assert_one_bad_line("cores = 65", "cores: '65' out of range 1..64 (or 'all')");
    assert_one_bad_line("cores = 99999999999999999999999",
                        "cores: '99999999999999999999999' out of range 1..64 (or 'all')");
    assert_one_bad_line("cores = four", "cores: 'four' is not a number: expected 1..64 (or 'all')");
    assert_one_bad_line("cores = -1", "cores: '-1' is not a number: expected 1..64 (or 'all')");
    assert_one_bad_line("cores = 4k", "cores: '4k' is not a number: expected 1..64 (or 'all')");
    assert_one_bad_line("cores = 0x", "cores: '0x' is not a number: expected 1..64 (or 'all')");
    assert_one_bad_line("cores = ALL", "cores: 'ALL' is not a number: expected 1..64 (or 'all')");
    assert_one_bad_line("console.port = 0x3f9", "console.port: '0x3f9' is not a multiple of 8");
    assert_one_bad_line("console.port = 0xf8", "console.port: '0xf8' out of range 0x100..0xfff8 "
                                               "(or 'com1', 'com2', 'com3', 'com4')");
    assert_one_bad_line("console.port = com5", "console.port: 'com5' is not a number: expected "
                                               "0x100..0xfff8 (or 'com1', 'com2', 'com3', 'com4')");
}

static void test_bad_enums_bools_strings(void **state)
{
    (void)state;
    assert_one_bad_line("console.baud = 12345", "console.baud: '12345' is not one of 9600, "
                                                "19200, 38400, 57600, 115200");
    assert_one_bad_line("panic = stop", "panic: 'stop' is not one of halt, reboot");
    assert_one_bad_line("test.fault_command = true",
                        "test.fault_command: 'true': expected yes or no");
    assert_one_bad_line("test.fault_command = Yes",
                        "test.fault_command: 'Yes': expected yes or no");
    assert_one_bad_line("name = a b", "name: 'a b' contains ' ': allowed are A-Z a-z 0-9 and _.-");
    assert_one_bad_line("name = 123456789012345678901234567890123",
                        "name: '123456789012345678901234567890123' has 33 characters, expected "
                        "1..32");
    assert_one_bad_line("panic =", "panic: empty value");
    assert_one_bad_line("panic =   # only a comment", "panic: empty value");
}

static void test_default_name_from_bad_file_name(void **state)
{
    (void)state;
    assert_int_equal(conf_parse("dir/my lab.conf", REQUIRED_KEYS, strlen(REQUIRED_KEYS), &vals,
                                &errs),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_int_equal(errs.list[0].line, 0);
    assert_string_equal(errs.list[0].msg, "name: 'my lab' contains ' ': allowed are A-Z a-z 0-9 "
                                          "and _.- (the default comes from the file name; set "
                                          "'name' in the file)");
    /* Setting name explicitly fixes it. */
    assert_int_equal(conf_parse("dir/my lab.conf", REQUIRED_KEYS "name = lab\n",
                                strlen(REQUIRED_KEYS "name = lab\n"), &vals, &errs),
                     0);
}

static void test_duplicate_key(void **state)
{
    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "panic = reboot\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 5, "duplicate key 'panic' (first set on line 4)");
    /* A key first set to a bad value was still set: the repeat is a duplicate too. */
    assert_int_equal(parse("cores = 0\n" REQUIRED_KEYS), WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 1, "cores: '0' out of range 1..64 (or 'all')");
    assert_error(1, 4, "duplicate key 'cores' (first set on line 1)");
}

static void test_missing_required_keys(void **state)
{
    (void)state;
    assert_int_equal(parse("console.port = com1\ncores = 2\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 0, "missing required key 'console.baud'");
    assert_error(1, 0, "missing required key 'panic'");
    assert_int_equal(parse(""), WS_ERR_INVAL);
    assert_int_equal(errs.count, 4);
    assert_int_equal(parse_bytes(NULL, 0), WS_ERR_INVAL);
    assert_int_equal(errs.count, 4);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    assert_one_bad_line("verbose", "expected 'key = value', found no '=' in 'verbose'");
    assert_one_bad_line("= 4", "empty key before '='");
    assert_one_bad_line("   =", "empty key before '='");
}

static void test_line_length(void **state)
{
    char text[1024];
    char line[300];

    (void)state;
    /* A 256-byte line is fine, 257 is not: once as a comment, once as a padded setting. */
    memset(line, 'x', sizeof(line));
    line[0] = '#';
    snprintf(text, sizeof(text), "%s%.256s\n", REQUIRED_KEYS, line);
    assert_int_equal(parse(text), 0);
    snprintf(text, sizeof(text), "%s%.256s\r\n", REQUIRED_KEYS, line); /* \r is not counted */
    assert_int_equal(parse(text), 0);
    snprintf(text, sizeof(text), "%s%.257s\n", REQUIRED_KEYS, line);
    assert_int_equal(parse(text), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 5, "line too long: 257 bytes, at most 256");
    snprintf(text, sizeof(text), "%s%-256s\n", REQUIRED_KEYS, "name = padded");
    assert_int_equal(parse(text), 0);
    assert_string_equal(conf_get(&vals, "name")->text, "padded");
    snprintf(text, sizeof(text), "%s%-257s\n", REQUIRED_KEYS, "name = padded");
    assert_int_equal(parse(text), WS_ERR_INVAL);
    assert_error(0, 5, "line too long: 257 bytes, at most 256");
}

static void test_comments_blanks_whitespace(void **state)
{
    (void)state;
    assert_int_equal(parse("# a comment\n"
                           "\n"
                           "   \t  \n"
                           "  # indented comment = with equals\n"
                           "\tconsole.port\t=\tcom2\t\n"
                           "console.baud=38400# not a comment: part of the value?\n"),
                     WS_ERR_INVAL);
    /* '#' not after whitespace belongs to the value. */
    assert_error(0, 6, "console.baud: '38400# not a comment: part of the value?' is not one of "
                       "9600, 19200, 38400, 57600, 115200");
    assert_int_equal(parse("\tconsole.port\t=\tcom2\t# trailing\n"
                           "console.baud=38400 #x\r\n"
                           "cores   =   8    \n"
                           "#\n"
                           "panic = halt # reboot\n"),
                     0);
    assert_int_equal(num_of("console.port"), 0x2f8);
    assert_int_equal(num_of("console.baud"), 38400);
    assert_int_equal(num_of("cores"), 8);
    assert_int_equal(num_of("panic"), 0);
}

static void test_nul_and_non_ascii(void **state)
{
    static const char with_nul[] = REQUIRED_KEYS "name = a\0b\n";
    static const char nul_in_comment[] = REQUIRED_KEYS "# \0\n";

    (void)state;
    assert_int_equal(parse_bytes(with_nul, sizeof(with_nul) - 1), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 5, "control character 0x00 at column 9");
    assert_int_equal(parse_bytes(nul_in_comment, sizeof(nul_in_comment) - 1), WS_ERR_INVAL);
    assert_error(0, 5, "control character 0x00 at column 3");
    assert_one_bad_line("name = x\x01", "control character 0x01 at column 9");
    assert_one_bad_line("name = caf\xc3\xa9",
                        "non-ASCII byte 0xc3 at column 11 (only comments may hold UTF-8)");
    assert_one_bad_line("n\xc3\xa4me = x",
                        "non-ASCII byte 0xc3 at column 2 (only comments may hold UTF-8)");
    /* UTF-8 in comments is fine. */
    assert_int_equal(parse(REQUIRED_KEYS "# caf\xc3\xa9\nname = x # na\xc3\xafve\n"), 0);
    assert_string_equal(conf_get(&vals, "name")->text, "x");
}

static void test_no_trailing_newline(void **state)
{
    (void)state;
    assert_int_equal(parse("console.port = com1\nconsole.baud = 115200\ncores = 2\npanic = reboot"),
                     0);
    assert_int_equal(num_of("panic"), 1);
    assert_int_equal(conf_get(&vals, "panic")->line, 4);
    assert_int_equal(parse(REQUIRED_KEYS "bogus = 1"), WS_ERR_INVAL);
    assert_error(0, 5, "unknown key 'bogus'");
}

static void test_all_errors_with_line_numbers(void **state)
{
    (void)state;
    assert_int_equal(parse("# header\n"                    /* 1 */
                           "panic = halt\n"                /* 2 */
                           "consol.port = com1\n"          /* 3 */
                           "console.baud = 12345\r\n"      /* 4 */
                           "\n"                            /* 5 */
                           "cores = 0\n"                   /* 6 */
                           "# comment\n"                   /* 7 */
                           "panic = reboot\n"              /* 8 */
                           "just words\n"                  /* 9 */
                           "test.fault_command = maybe"),  /* 10, no newline */
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 7);
    assert_int_equal(errs.dropped, 0);
    assert_error(0, 3, "unknown key 'consol.port'");
    assert_error(1, 4, "console.baud: '12345' is not one of 9600, 19200, 38400, 57600, 115200");
    assert_error(2, 6, "cores: '0' out of range 1..64 (or 'all')");
    assert_error(3, 8, "duplicate key 'panic' (first set on line 2)");
    assert_error_has(4, 9, "found no '='");
    assert_error(5, 10, "test.fault_command: 'maybe': expected yes or no");
    assert_error(6, 0, "missing required key 'console.port'");
}

static void test_error_list_overflow(void **state)
{
    char text[2048] = "";

    (void)state;
    for (int i = 0; i < 40; i++) {
        strcat(text, "bogus = 1\n");
    }
    assert_int_equal(parse(text), WS_ERR_INVAL);
    assert_int_equal(errs.count, CONF_MAX_ERRORS);
    assert_int_equal(errs.dropped, 40 - CONF_MAX_ERRORS + 4); /* + the 4 missing keys */
    assert_error(CONF_MAX_ERRORS - 1, CONF_MAX_ERRORS, "unknown key 'bogus'");
}

static void test_key_table_is_sound(void **state)
{
    (void)state;
    assert_true(conf_key_count <= CONF_MAX_KEYS);
    for (size_t i = 0; i < conf_key_count; i++) {
        const struct conf_key *k = &conf_keys[i];

        assert_int_equal(strspn(k->name, "abcdefghijklmnopqrstuvwxyz0123456789_."),
                         strlen(k->name));
        assert_ptr_equal(conf_key_find(k->name), k);
        assert_int_equal(strncmp(k->macro, "CONFIG_", 7), 0);
        assert_non_null(k->doc);
        assert_null(strchr(k->doc, '|')); /* would break the markdown table */
        assert_true(strlen(k->doc) <= CONF_DOC_MAX_BYTES);
        assert_true(k->required || k->def != NULL || k->def_from_file || k->no_default);
        /* Only an address, a MAC or a PCI function has a "not set" macro for the firmware to
         * test; routes are a list, empty when unset. */
        assert_true(!k->no_default ||
                    ((k->type == CONF_IPV4_PREFIX || k->type == CONF_IPV6_PREFIX ||
                      k->type == CONF_MAC || k->type == CONF_PCI_ADDR || k->type == CONF_ROUTE ||
                      k->type == CONF_ROUTE6 || k->type == CONF_VLAN || k->type == CONF_NEIGH) &&
                     !k->required));
        assert_true(k->type != CONF_IPV4_PREFIX || (k->min >= 0 && k->max <= 30));
        assert_true(k->type != CONF_IPV6_PREFIX || (k->no_default && k->min >= 1 && k->max <= 128));
        /* A list is a route, static-neighbour or VLAN list: it may repeat, and has no
         * default. */
        assert_true(k->repeatable == (k->type == CONF_ROUTE || k->type == CONF_ROUTE6 ||
                                      k->type == CONF_NEIGH || k->type == CONF_VLAN));
        assert_true(k->type != CONF_ROUTE6 || (k->no_default && k->min >= 0 && k->max <= 128));
        assert_true(k->type != CONF_NEIGH || k->no_default);
        assert_true(k->type != CONF_VLAN || (k->no_default && k->min >= 8 && k->max <= 30));
        assert_true(k->type != CONF_ROUTE || (k->no_default && k->min >= 0 && k->max <= 32));
        assert_true(!k->one_hot || k->type == CONF_ENUM);
        assert_true(!k->pow2 || (k->type == CONF_INT && k->min > 0));
        assert_true(k->type != CONF_ENUM || k->choices[0].word != NULL);
        assert_true(k->type != CONF_STRING ||
                    (k->extra_chars != NULL && k->max_len <= CONF_LINE_MAX_BYTES));
        for (size_t j = 0; j < i; j++) {
            /* portN.address and portN.address6 share a macro prefix: their suffixes differ. */
            bool v4_v6 = (conf_keys[j].type == CONF_IPV4_PREFIX && k->type == CONF_IPV6_PREFIX) ||
                         (conf_keys[j].type == CONF_IPV6_PREFIX && k->type == CONF_IPV4_PREFIX);

            assert_string_not_equal(conf_keys[j].name, k->name);
            if (!v4_v6) {
                assert_string_not_equal(conf_keys[j].macro, k->macro);
            }
        }
    }
    /* CONFIG_PORT_ADDRESSES is built from these rows, found by name. */
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char name[32], macro[32];
        const struct conf_key *k;

        snprintf(name, sizeof(name), "port%u.address", n);
        snprintf(macro, sizeof(macro), "CONFIG_PORT%u", n);
        k = conf_key_find(name);
        assert_non_null(k);
        assert_int_equal(k->type, CONF_IPV4_PREFIX);
        assert_string_equal(k->macro, macro);
        /* CONFIG_PORT_ADDRESSES6 from these, with the same macro prefix */
        snprintf(name, sizeof(name), "port%u.address6", n);
        k = conf_key_find(name);
        assert_non_null(k);
        assert_int_equal(k->type, CONF_IPV6_PREFIX);
        assert_string_equal(k->macro, macro);
        /* and CONFIG_PORT_NEXT_HOP_MACS from these */
        snprintf(name, sizeof(name), "port%u.next_hop_mac", n);
        snprintf(macro, sizeof(macro), "CONFIG_PORT%u_NEXT_HOP", n);
        k = conf_key_find(name);
        assert_non_null(k);
        assert_int_equal(k->type, CONF_MAC);
        assert_string_equal(k->macro, macro);
    }
    /* The wire-mode check finds these by name. */
    assert_int_equal(conf_key_find("mode")->type, CONF_ENUM);
    assert_int_equal(conf_key_find("wire.rewrite_mac")->type, CONF_BOOL);
    assert_int_equal(conf_key_find("wire.pairs")->type, CONF_PORT_PAIRS);
    /* Every table default passes its own validation. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
}

static void test_emitted_header(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse("name = lab\nconsole.port = com2\nconsole.baud = 115200\n"
                           "cores = 8\npanic = reboot\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_non_null(strstr(h, "from config/t.conf"));
    assert_non_null(strstr(h, "#ifndef WS_CONFIG_GENERATED_H\n#define WS_CONFIG_GENERATED_H\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NAME \"lab\"\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_CONSOLE_PORT 0x2f8\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_CONSOLE_BAUD 115200\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_MAX_CORES 8\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_PANIC_REBOOT 1\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_TEST_FAULT_COMMAND 0\n"));
    assert_non_null(strstr(h, "/* console.port = com2 (line 2)."));
    assert_non_null(strstr(h, "/* test.fault_command = no (default)."));
    assert_non_null(strstr(h, "\n#endif\n"));
    for (const char *line = h; *line != '\0'; line = strchr(line, '\n') + 1) {
        assert_true(strcspn(line, "\n") <= 100);
    }
    free(h);

    assert_int_equal(parse(REQUIRED_KEYS "test.fault_command = yes\n"), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_non_null(strstr(h, "\n#define CONFIG_MAX_CORES 0\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_TEST_FAULT_COMMAND 1\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NAME \"t\"\n"));
    free(h);
}

/* Assert an address key holds ip/prefix. */
static void assert_address(const char *key, uint32_t ip, unsigned prefix)
{
    const struct conf_value *v = conf_get(&vals, key);

    assert_non_null(v);
    assert_true(v->present);
    assert_int_equal(v->ip, ip);
    assert_int_equal(v->prefix, prefix);
}

static void test_port_address_valid(void **state)
{
    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.1/24\n"
                                         "port1.address=10.0.0.1/8\n"
                                         "port3.address = 223.255.255.253/30 # last unicast /30\n"
                                         "port2.address = 0.0.0.0/8\n"),
                     WS_ERR_INVAL); /* port2 is wrong; the others are still checked */
    assert_int_equal(errs.count, 1);
    assert_address("port0.address", 0xc6120001, 24);
    assert_address("port1.address", 0x0a000001, 8);
    assert_address("port3.address", 0xdffffffd, 30);

    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.1/24\n"
                                         "port1.address = 1.0.0.1/8\n"
                                         "port2.address = 223.255.255.254/30\n"
                                         "port3.address = 192.168.0.2/30\n"),
                     0);
    assert_address("port1.address", 0x01000001, 8);
    assert_address("port2.address", 0xdffffffe, 30);
    assert_address("port3.address", 0xc0a80002, 30);
    assert_string_equal(conf_get(&vals, "port0.address")->text, "198.18.0.1/24");
    assert_int_equal(conf_get(&vals, "port0.address")->line, 5);
    /* The octets 0 and 255 are fine inside an address; only whole-address rules refuse them. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 10.0.255.0/16\n"), 0);
    assert_address("port0.address", 0x0a00ff00, 16);
    /* Unset: no default, not present, no error. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];

        snprintf(key, sizeof(key), "port%u.address", n);
        assert_false(conf_get(&vals, key)->present);
        assert_int_equal(conf_get(&vals, key)->line, 0);
        assert_int_equal(conf_get(&vals, key)->ip, 0);
    }
}

static void test_port_address_syntax(void **state)
{
    (void)state;
    assert_one_bad_line("port0.address = 198.18.0.1",
                        "port0.address: '198.18.0.1' has no prefix length: expected a.b.c.d/len, "
                        "len 8..30");
    static const char *const not_quads[] = {
        "198.18.0/24", "198.18.0.1.5/24", "198.18..1/24", ".18.0.1/24", "198.18.0./24",
        "+198.18.0.1/24", "198.+18.0.1/24", "198. 18.0.1/24", "198.18.0 .1/24", "0xc6.18.0.1/24",
        "198.18.0.1 /24", "a.b.c.d/24", "198,18,0,1/24", "/24", "-1.2.3.4/8",
    };
    char line[128], msg[256];

    for (size_t i = 0; i < sizeof(not_quads) / sizeof(not_quads[0]); i++) {
        snprintf(line, sizeof(line), "port0.address = %s", not_quads[i]);
        snprintf(msg, sizeof(msg), "port0.address: '%s' is not an IPv4 address with prefix "
                 "length: expected a.b.c.d/len, four decimal octets 0..255", not_quads[i]);
        assert_one_bad_line(line, msg);
    }
    /* Leading zeros: octal to some parsers (010 = 8), decimal to others. */
    assert_one_bad_line("port0.address = 198.018.0.1/24",
                        "port0.address: '198.018.0.1/24': octet '018' has a leading zero (octal "
                        "or decimal?): write it without");
    assert_one_bad_line("port1.address = 010.1.2.3/8",
                        "port1.address: '010.1.2.3/8': octet '010' has a leading zero (octal or "
                        "decimal?): write it without");
    assert_one_bad_line("port1.address = 10.1.2.00/8",
                        "port1.address: '10.1.2.00/8': octet '00' has a leading zero (octal or "
                        "decimal?): write it without");
    assert_one_bad_line("port0.address = 198.18.0.1/024",
                        "port0.address: '198.18.0.1/024': prefix length '024' has a leading "
                        "zero: write it without");
    assert_one_bad_line("port0.address = 198.256.0.1/24",
                        "port0.address: '198.256.0.1/24': octet '256' out of range 0..255");
    assert_one_bad_line("port0.address = 198.18.0.99999999999999999999/24",
                        "port0.address: '198.18.0.99999999999999999999/24': octet "
                        "'99999999999999999999' out of range 0..255");
    assert_one_bad_line("port0.address = 198.18.0.1/",
                        "port0.address: '198.18.0.1/': prefix length '' is not a number: "
                        "expected 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/+24",
                        "port0.address: '198.18.0.1/+24': prefix length '+24' is not a number: "
                        "expected 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/24/24",
                        "port0.address: '198.18.0.1/24/24': prefix length '24/24' is not a "
                        "number: expected 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1//24",
                        "port0.address: '198.18.0.1//24': prefix length '/24' is not a number: "
                        "expected 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/0x18",
                        "port0.address: '198.18.0.1/0x18': prefix length '0x18' is not a "
                        "number: expected 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/7",
                        "port0.address: '198.18.0.1/7': prefix length 7 out of range 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/31",
                        "port0.address: '198.18.0.1/31': prefix length 31 out of range 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/32",
                        "port0.address: '198.18.0.1/32': prefix length 32 out of range 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/0",
                        "port0.address: '198.18.0.1/0': prefix length 0 out of range 8..30");
    assert_one_bad_line("port0.address = 198.18.0.1/99999999999",
                        "port0.address: '198.18.0.1/99999999999': prefix length 99999999999 out "
                        "of range 8..30");
    assert_one_bad_line("port0.address =", "port0.address: empty value");
}

static void test_port_address_unusable(void **state)
{
    (void)state;
    assert_one_bad_line("port0.address = 0.0.0.1/8",
                        "port0.address: 0.0.0.1 is in 0.0.0.0/8 ('this network'), not an "
                        "interface address");
    assert_one_bad_line("port0.address = 0.255.1.1/16",
                        "port0.address: 0.255.1.1 is in 0.0.0.0/8 ('this network'), not an "
                        "interface address");
    assert_one_bad_line("port0.address = 127.0.0.1/8",
                        "port0.address: 127.0.0.1 is a loopback address (127.0.0.0/8)");
    assert_one_bad_line("port2.address = 127.200.3.4/24",
                        "port2.address: 127.200.3.4 is a loopback address (127.0.0.0/8)");
    assert_one_bad_line("port0.address = 224.0.0.1/24",
                        "port0.address: 224.0.0.1 is a multicast address (224.0.0.0/4)");
    assert_one_bad_line("port0.address = 239.255.255.1/24",
                        "port0.address: 239.255.255.1 is a multicast address (224.0.0.0/4)");
    assert_one_bad_line("port0.address = 240.0.0.1/24",
                        "port0.address: 240.0.0.1 is in the reserved range 240.0.0.0/4");
    assert_one_bad_line("port3.address = 255.255.255.254/30",
                        "port3.address: 255.255.255.254 is in the reserved range 240.0.0.0/4");
    assert_one_bad_line("port0.address = 255.255.255.255/24",
                        "port0.address: 255.255.255.255 is the limited broadcast address");
    /* Its own subnet's network and broadcast addresses, at several prefix lengths. */
    assert_one_bad_line("port0.address = 198.18.0.0/24",
                        "port0.address: 198.18.0.0 is the network address of 198.18.0.0/24");
    assert_one_bad_line("port0.address = 198.18.0.255/24",
                        "port0.address: 198.18.0.255 is the broadcast address of 198.18.0.0/24");
    assert_one_bad_line("port1.address = 10.0.0.0/8",
                        "port1.address: 10.0.0.0 is the network address of 10.0.0.0/8");
    assert_one_bad_line("port1.address = 10.255.255.255/8",
                        "port1.address: 10.255.255.255 is the broadcast address of 10.0.0.0/8");
    assert_one_bad_line("port1.address = 192.168.1.4/30",
                        "port1.address: 192.168.1.4 is the network address of 192.168.1.4/30");
    assert_one_bad_line("port1.address = 192.168.1.7/30",
                        "port1.address: 192.168.1.7 is the broadcast address of 192.168.1.4/30");
    assert_one_bad_line("port1.address = 172.31.255.255/12",
                        "port1.address: 172.31.255.255 is the broadcast address of "
                        "172.16.0.0/12");
    /* 198.18.0.255 is an ordinary host in a /16. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.255/16\n"), 0);
    assert_address("port0.address", 0xc61200ff, 16);
    /* The error is on the address's own line. */
    assert_int_equal(parse(REQUIRED_KEYS "\nport3.address = 198.18.0.0/24\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 6, "port3.address: 198.18.0.0 is the network address of 198.18.0.0/24");
}

static void test_port_subnets_overlap(void **state)
{
    (void)state;
    /* Same subnet: reported on the later line, naming the earlier key and its line. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.1/24\n"
                                         "port1.address = 198.18.0.2/24\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 6, "port1.address: 198.18.0.2/24 is in the same subnet 198.18.0.0/24 as "
                       "port0.address (line 5)");
    assert_false(conf_get(&vals, "port1.address")->present);
    /* "Later" is by line, not by port number. */
    assert_int_equal(parse("port2.address = 10.1.2.3/16\n" REQUIRED_KEYS
                           "port0.address = 10.1.200.1/16\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 6, "port0.address: 10.1.200.1/16 is in the same subnet 10.1.0.0/16 as "
                       "port2.address (line 1)");
    /* A wider subnet holding an earlier one, and a narrower one inside an earlier one. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.1/24\n"
                                         "port1.address = 198.19.0.1/24\n"
                                         "port2.address = 198.18.7.1/16\n"
                                         "port3.address = 198.19.0.129/25\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 7, "port2.address: subnet 198.18.0.0/16 overlaps subnet 198.18.0.0/24 of "
                       "port0.address (line 5)");
    assert_error(1, 8, "port3.address: subnet 198.19.0.128/25 overlaps subnet 198.19.0.0/24 of "
                       "port1.address (line 6)");
    /* The same address twice is the same subnet too. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 10.9.9.9/8\n"
                                         "port3.address = 10.9.9.9/8\n"),
                     WS_ERR_INVAL);
    assert_error(0, 6, "port3.address: 10.9.9.9/8 is in the same subnet 10.0.0.0/8 as "
                       "port0.address (line 5)");
    /* Adjacent subnets do not overlap; neither do 198.18.0.0/15 halves as /16s. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 192.168.1.1/30\n"
                                         "port1.address = 192.168.1.5/30\n"
                                         "port2.address = 198.18.0.1/16\n"
                                         "port3.address = 198.19.0.1/16\n"),
                     0);
    /* A bad address is not compared (its own error suffices) and does not hide later ones. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 10.0.0.0/8\n"
                                         "port1.address = 10.0.0.1/8\n"
                                         "port2.address = 10.0.0.2/8\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 5, "port0.address: 10.0.0.0 is the network address of 10.0.0.0/8");
    assert_error(1, 7, "port2.address: 10.0.0.2/8 is in the same subnet 10.0.0.0/8 as "
                       "port1.address (line 6)");
    /* A duplicate key is reported as such, not as an overlap with itself. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 10.0.0.1/8\n"
                                         "port0.address = 10.0.0.2/8\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 6, "duplicate key 'port0.address' (first set on line 5)");
}

static void test_nic_and_poll_keys(void **state)
{
    (void)state;
    /* Defaults. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_int_equal(num_of("nic.rx_descs"), 512);
    assert_int_equal(num_of("nic.tx_descs"), 512);
    assert_int_equal(num_of("nic.burst"), 32);
    assert_int_equal(num_of("nic.rx_usecs"), 10);
    assert_int_equal(num_of("nic.pool_buffers"), 4096);
    assert_int_equal(num_of("poll.mode"), 1); /* adaptive */
    assert_int_equal(num_of("poll.idle_us"), 20);
    assert_int_equal(conf_get(&vals, "poll.mode")->line, 0);
    /* Lower edges, then upper edges. */
    assert_int_equal(parse(REQUIRED_KEYS "nic.rx_descs = 64\nnic.tx_descs = 0x40\n"
                                         "nic.burst = 1\nnic.rx_usecs = 0\n"
                                         "nic.pool_buffers = 256\npoll.mode = busy\n"
                                         "poll.idle_us = 1\n"),
                     0);
    assert_int_equal(num_of("nic.rx_descs"), 64);
    assert_int_equal(num_of("nic.tx_descs"), 64);
    assert_int_equal(num_of("nic.burst"), 1);
    assert_int_equal(num_of("nic.rx_usecs"), 0);
    assert_int_equal(num_of("nic.pool_buffers"), 256);
    assert_int_equal(num_of("poll.mode"), 0);
    assert_int_equal(num_of("poll.idle_us"), 1);
    assert_int_equal(conf_get(&vals, "poll.idle_us")->line, 11);
    assert_int_equal(parse(REQUIRED_KEYS "nic.rx_descs = 4096\nnic.tx_descs = 1024\n"
                                         "nic.burst = 64\nnic.rx_usecs = 10000\n"
                                         "nic.pool_buffers = 65536\npoll.mode = adaptive\n"
                                         "poll.idle_us = 1000000\n"),
                     0);
    assert_int_equal(num_of("nic.rx_descs"), 4096);
    assert_int_equal(num_of("nic.tx_descs"), 1024);
    assert_int_equal(num_of("nic.burst"), 64);
    assert_int_equal(num_of("nic.rx_usecs"), 10000);
    assert_int_equal(num_of("nic.pool_buffers"), 65536);
    assert_int_equal(num_of("poll.mode"), 1);
    assert_int_equal(num_of("poll.idle_us"), 1000000);
    /* Every power of two in range is accepted. */
    for (int v = 64; v <= 4096; v *= 2) {
        char text[256];

        snprintf(text, sizeof(text), REQUIRED_KEYS "nic.rx_descs = %d\nnic.tx_descs = %d\n", v,
                 v);
        assert_int_equal(parse(text), 0);
        assert_int_equal(num_of("nic.rx_descs"), v);
        assert_int_equal(num_of("nic.tx_descs"), v);
    }
}

/* sink.tcp_window_kib: lwIP's TCP_WND in KiB; the window scale of 4 bounds it below 1 MiB. */
static void test_sink_tcp_window(void **state)
{
    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_int_equal(num_of("sink.tcp_window_kib"), 256);
    assert_int_equal(parse(REQUIRED_KEYS "sink.tcp_window_kib = 64\n"), 0);
    assert_int_equal(num_of("sink.tcp_window_kib"), 64);
    assert_int_equal(parse(REQUIRED_KEYS "sink.tcp_window_kib = 1023\n"), 0);
    assert_int_equal(num_of("sink.tcp_window_kib"), 1023);
    assert_one_bad_line("sink.tcp_window_kib = 1024",
                        "sink.tcp_window_kib: '1024' out of range 64..1023");
    assert_one_bad_line("sink.tcp_window_kib = 63",
                        "sink.tcp_window_kib: '63' out of range 64..1023");
}

static void test_nic_and_poll_bad_values(void **state)
{
    (void)state;
    assert_one_bad_line("nic.rx_descs = 500", "nic.rx_descs: 500 is not a power of two");
    assert_one_bad_line("nic.rx_descs = 576", "nic.rx_descs: 576 is not a power of two");
    assert_one_bad_line("nic.tx_descs = 4095", "nic.tx_descs: 4095 is not a power of two");
    assert_one_bad_line("nic.tx_descs = 0x3ff", "nic.tx_descs: 0x3ff is not a power of two");
    assert_one_bad_line("nic.rx_descs = 32", "nic.rx_descs: '32' out of range 64..4096");
    assert_one_bad_line("nic.rx_descs = 8192", "nic.rx_descs: '8192' out of range 64..4096");
    assert_one_bad_line("nic.tx_descs = 0", "nic.tx_descs: '0' out of range 64..4096");
    assert_one_bad_line("nic.rx_descs = 1k", "nic.rx_descs: '1k' is not a number: expected "
                                             "64..4096");
    assert_one_bad_line("nic.burst = 0", "nic.burst: '0' out of range 1..64");
    assert_one_bad_line("nic.burst = 65", "nic.burst: '65' out of range 1..64");
    assert_one_bad_line("nic.rx_usecs = 10001", "nic.rx_usecs: '10001' out of range 0..10000");
    assert_one_bad_line("nic.rx_usecs = -1", "nic.rx_usecs: '-1' is not a number: expected "
                                             "0..10000");
    assert_one_bad_line("nic.pool_buffers = 255",
                        "nic.pool_buffers: '255' out of range 256..65536");
    assert_one_bad_line("nic.pool_buffers = 65537",
                        "nic.pool_buffers: '65537' out of range 256..65536");
    assert_one_bad_line("poll.mode = polling", "poll.mode: 'polling' is not one of busy, adaptive");
    assert_one_bad_line("poll.mode = Busy", "poll.mode: 'Busy' is not one of busy, adaptive");
    assert_one_bad_line("poll.idle_us = 0", "poll.idle_us: '0' out of range 1..1000000");
    assert_one_bad_line("poll.idle_us = 1000001",
                        "poll.idle_us: '1000001' out of range 1..1000000");
    /* Errors keep their lines among others. */
    assert_int_equal(parse(REQUIRED_KEYS "nic.burst = 16\n"
                                         "nic.rx_descs = 500\n"
                                         "\n"
                                         "nic.tx_descs = 1000\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 6, "nic.rx_descs: 500 is not a power of two");
    assert_error(1, 8, "nic.tx_descs: 1000 is not a power of two");
}

static void test_emitted_new_macros(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.1/24\n"
                                         "port2.address = 10.1.2.3/8\n"
                                         "nic.rx_descs = 1024\nnic.tx_descs = 256\n"
                                         "nic.burst = 16\nnic.rx_usecs = 0\n"
                                         "nic.pool_buffers = 8192\npoll.mode = busy\n"
                                         "poll.idle_us = 250\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_non_null(strstr(h, "\n#define CONFIG_PORT0_HAS_ADDRESS 1\n"
                              "#define CONFIG_PORT0_IP 0xc6120001u\n"
                              "#define CONFIG_PORT0_PREFIX 24\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_PORT1_HAS_ADDRESS 0\n"
                              "#define CONFIG_PORT1_IP 0x00000000u\n"
                              "#define CONFIG_PORT1_PREFIX 0\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_PORT2_HAS_ADDRESS 1\n"
                              "#define CONFIG_PORT2_IP 0x0a010203u\n"
                              "#define CONFIG_PORT2_PREFIX 8\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_PORT3_HAS_ADDRESS 0\n"));
    assert_non_null(strstr(h, "/* port0.address = 198.18.0.1/24 (line 5)."));
    assert_non_null(strstr(h, "/* port1.address not set (no default)."));
    assert_non_null(strstr(h, "\n#define CONFIG_PORT_ADDRESSES \\\n"
                              "    { { 1, 0xc6120001u, 24 }, \\\n"
                              "      { 0, 0x00000000u, 0 }, \\\n"
                              "      { 1, 0x0a010203u, 8 }, \\\n"
                              "      { 0, 0x00000000u, 0 } }\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_RX_DESCS 1024\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_TX_DESCS 256\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_BURST 16\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_RX_USECS 0\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_POOL_BUFFERS 8192\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_POLL_ADAPTIVE 0\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_POLL_IDLE_US 250\n"));
    /* The aggregate comes after every key's macro, before the guard's end. */
    assert_true(strstr(h, "CONFIG_PORT_ADDRESSES") > strstr(h, "CONFIG_POLL_IDLE_US"));
    assert_non_null(strstr(h, " }\n\n#endif\n"));
    for (const char *line = h; *line != '\0'; line = strchr(line, '\n') + 1) {
        assert_true(strcspn(line, "\n") <= 100);
    }
    free(h);

    /* Defaults: no address anywhere, adaptive polling. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_non_null(strstr(h, "\n#define CONFIG_PORT0_HAS_ADDRESS 0\n"));
    assert_non_null(strstr(h, "      { 0, 0x00000000u, 0 } }\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_RX_DESCS 512\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_TX_DESCS 512\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_BURST 32\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_RX_USECS 10\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_POOL_BUFFERS 4096\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_POLL_ADAPTIVE 1\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_POLL_IDLE_US 20\n"));
    assert_non_null(strstr(h, "/* poll.mode = adaptive (default)."));
    free(h);
}

/* The doc table names all three macros of an address and marks ranges and defaults. */
static void test_doc_new_rows(void **state)
{
    char *table;

    (void)state;
    table = emit_to_string(conf_emit_doc);
    assert_non_null(strstr(table, "| `port0.address` | no | unset | `a.b.c.d/len`, len 8..30;"));
    assert_non_null(strstr(table, "| `CONFIG_PORT3_HAS_ADDRESS`, `CONFIG_PORT3_IP`, "
                                  "`CONFIG_PORT3_PREFIX` |"));
    assert_non_null(strstr(table, "| `nic.rx_descs` | no | `512` | 64..4096, power of two | "
                                  "`CONFIG_NIC_RX_DESCS` |"));
    assert_non_null(strstr(table, "| `poll.mode` | no | `adaptive` | `busy` (0), `adaptive` (1) "
                                  "| `CONFIG_POLL_ADAPTIVE` |"));
    free(table);
}

/* Parse a shipped config file into v; it must be valid and set every key that has a default. */
static void parse_shipped(const char *rel, struct conf_values *v)
{
    size_t len;
    char *text = read_repo_file(rel, &len);

    if (conf_parse(rel, text, len, v, &errs) != 0) {
        fail_msg("%s:%u: %s", rel, errs.list[0].line, errs.list[0].msg);
    }
    free(text);
    for (size_t i = 0; i < conf_key_count; i++) {
        /* documented by being set explicitly; a key without default may be left out */
        if (!conf_keys[i].no_default && v->val[i].line == 0) {
            fail_msg("%s does not set %s", rel, conf_keys[i].name);
        }
    }
}

/* Assert that two parsed files agree on every key but those listed (NULL-terminated). */
static void assert_same_but(const struct conf_values *a, const struct conf_values *b,
                            const char *const *except)
{
    for (size_t i = 0; i < conf_key_count; i++) {
        const char *key = conf_keys[i].name;
        bool skip = false;

        for (const char *const *e = except; *e != NULL; e++) {
            skip |= strcmp(*e, key) == 0;
        }
        if (skip) {
            continue;
        }
        if (a->val[i].present != b->val[i].present || a->val[i].num != b->val[i].num ||
            a->val[i].ip != b->val[i].ip || a->val[i].prefix != b->val[i].prefix ||
            memcmp(a->val[i].ip6, b->val[i].ip6, sizeof(a->val[i].ip6)) != 0 ||
            memcmp(a->val[i].mac, b->val[i].mac, sizeof(a->val[i].mac)) != 0 ||
            memcmp(a->val[i].peer, b->val[i].peer, sizeof(a->val[i].peer)) != 0) {
            fail_msg("%s and %s differ in %s", a->file_name, b->file_name, key);
        }
    }
}

/* Assert that two parsed files have the same routes (their lines aside). */
static void assert_same_routes(const struct conf_values *a, const struct conf_values *b)
{
    assert_int_equal(a->nroutes, b->nroutes);
    for (unsigned r = 0; r < a->nroutes; r++) {
        assert_int_equal(a->routes[r].prefix, b->routes[r].prefix);
        assert_int_equal(a->routes[r].len, b->routes[r].len);
        assert_int_equal(a->routes[r].via, b->routes[r].via);
        assert_int_equal(a->routes[r].gateway, b->routes[r].gateway);
        assert_int_equal(a->routes[r].iface, b->routes[r].iface);
    }
}

/* Assert that two parsed files have the same route6 lines (their lines aside). */
static void assert_same_routes6(const struct conf_values *a, const struct conf_values *b)
{
    assert_int_equal(a->nroutes6, b->nroutes6);
    for (unsigned r = 0; r < a->nroutes6; r++) {
        assert_memory_equal(a->routes6[r].prefix, b->routes6[r].prefix, CONF_IPV6_BYTES);
        assert_int_equal(a->routes6[r].len, b->routes6[r].len);
        assert_int_equal(a->routes6[r].via, b->routes6[r].via);
        assert_memory_equal(a->routes6[r].gateway, b->routes6[r].gateway, CONF_IPV6_BYTES);
        assert_int_equal(a->routes6[r].dev, b->routes6[r].dev);
        assert_int_equal(a->routes6[r].iface, b->routes6[r].iface);
    }
}

/* The shipped configs are valid, set every key, and differ only where their headers say. */
static void test_shipped_configs(void **state)
{
    static struct conf_values def, test, busy, wire, reboot, jumbo, slots, ra;
    static const char *const test_diff[] = { "name", "test.fault_command", "neigh.static", "vlan",
                                             "port1.mtu", "sink.iperf3_json", NULL };
    static const char *const reboot_diff[] = { "name", "panic", "vlan.offload", NULL };
    static const char *const busy_diff[] = { "name", "poll.mode", NULL };
    static const char *const jumbo_diff[] = { "name", "port0.mtu", "port1.mtu",
                                              "nic.pool_buffers", NULL };
    static const char *const wire_diff[] = { "name",          "mode",           "port0.address",
                                             "port1.address", "port0.address6", "port1.address6",
                                             "route",         "route6",         NULL };
    static const char *const slots_diff[] = { "name", "port0.pci", "port1.pci", NULL };
    static const char *const ra_diff[] = { "name", "port0.mtu", "port0.advertise6", NULL };
    static const uint8_t a18[CONF_IPV6_BYTES] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18, [15] = 1 };
    static const uint8_t a19[CONF_IPV6_BYTES] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x19, [15] = 1 };

    (void)state;
    parse_shipped("config/default.conf", &def);
    parse_shipped("config/test.conf", &test);
    parse_shipped("config/busy.conf", &busy);
    parse_shipped("config/wire.conf", &wire);
    parse_shipped("config/reboot.conf", &reboot);
    parse_shipped("config/jumbo.conf", &jumbo);
    parse_shipped("config/slots.conf", &slots);
    parse_shipped("config/ra.conf", &ra);
    assert_same_but(&def, &jumbo, jumbo_diff);
    assert_same_routes(&def, &jumbo);
    assert_same_but(&def, &slots, slots_diff);
    assert_same_routes(&def, &slots);
    /* Every router-mode file has default.conf's IPv6 addresses and routes. */
    assert_same_routes6(&def, &test);
    assert_same_routes6(&def, &busy);
    assert_same_routes6(&def, &jumbo);
    assert_same_routes6(&def, &reboot);
    assert_same_routes6(&def, &slots);
    assert_same_routes6(&def, &ra);
    /* ra.conf is test.conf with port0 advertising at an MTU the hosts can tell from 1500. */
    assert_same_but(&test, &ra, ra_diff);
    assert_same_routes(&test, &ra);
    assert_string_equal(conf_get(&ra, "name")->text, "ra");
    assert_int_equal(conf_get(&ra, "port0.advertise6")->num, 1);
    assert_int_equal(conf_get(&ra, "port1.advertise6")->num, 0);
    assert_int_equal(conf_get(&ra, "port0.mtu")->num, 1400);
    /* Router advertisements are off in every other file: their hosts keep static routes. */
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];

        snprintf(key, sizeof(key), "port%u.advertise6", n);
        assert_int_equal(conf_get(&def, key)->num, 0);
        assert_int_equal(conf_get(&test, key)->num, 0);
    }
    assert_int_equal(conf_get(&jumbo, "port0.mtu")->num, 9000);
    assert_same_but(&test, &reboot, reboot_diff);
    assert_same_routes(&test, &reboot);
    assert_string_equal(conf_get(&reboot, "name")->text, "reboot");
    assert_int_equal(conf_get(&reboot, "panic")->num, 1);
    assert_int_equal(conf_get(&reboot, "vlan.offload")->num, 0); /* test_vlan: the software tags */
    assert_int_equal(conf_get(&test, "panic")->num, 0);
    assert_same_but(&def, &test, test_diff);
    assert_same_but(&def, &busy, busy_diff);
    assert_same_but(&def, &wire, wire_diff);
    assert_same_routes(&def, &test);
    assert_same_routes(&def, &busy);

    assert_int_equal(conf_get(&def, "port0.address")->ip, 0xc6120001); /* 198.18.0.1/24 */
    assert_int_equal(conf_get(&def, "port1.address")->ip, 0xc6130001); /* 198.19.0.1/24 */
    assert_string_equal(conf_get(&def, "name")->text, "default");
    assert_int_equal(conf_get(&def, "test.fault_command")->num, 0);
    assert_string_equal(conf_get(&test, "name")->text, "test");
    assert_int_equal(conf_get(&test, "test.fault_command")->num, 1);
    assert_string_equal(conf_get(&busy, "name")->text, "busy");
    assert_int_equal(conf_get(&busy, "poll.mode")->num, 0);

    /* The system tests rely on these two routes: the /25 on port0 inside the /24 on port1. */
    assert_string_equal(conf_get(&def, "mode")->text, "router");
    assert_int_equal(def.nroutes, 2);
    assert_int_equal(def.routes[0].prefix, 0xc6336400); /* 198.51.100.0/24 */
    assert_int_equal(def.routes[0].len, 24);
    assert_int_equal(def.routes[0].gateway, 0xc6130002); /* 198.19.0.2 */
    assert_int_equal(def.routes[0].iface, 1);
    assert_int_equal(def.routes[1].prefix, 0xc6336480); /* 198.51.100.128/25 */
    assert_int_equal(def.routes[1].len, 25);
    assert_int_equal(def.routes[1].gateway, 0xc6120002); /* 198.18.0.2 */
    assert_int_equal(def.routes[1].iface, 0);

    /* ... and their IPv6 twins: 2001:db8:100::/48 via port1, its /49 upper half via port0. */
    assert_true(conf_get(&def, "port0.address6")->present);
    assert_memory_equal(conf_get(&def, "port0.address6")->ip6, a18, CONF_IPV6_BYTES);
    assert_int_equal(conf_get(&def, "port0.address6")->prefix, 64);
    assert_memory_equal(conf_get(&def, "port1.address6")->ip6, a19, CONF_IPV6_BYTES);
    assert_int_equal(conf_get(&def, "port1.address6")->prefix, 64);
    assert_false(conf_get(&def, "port2.address6")->present);
    assert_int_equal(def.nroutes6, 2);
    assert_int_equal(def.routes6[0].len, 48);
    assert_int_equal(def.routes6[0].gateway[5], 0x19);
    assert_int_equal(def.routes6[0].iface, 1);
    assert_int_equal(def.routes6[1].len, 49);
    assert_int_equal(def.routes6[1].prefix[6], 0x80);
    assert_int_equal(def.routes6[1].gateway[5], 0x18);
    assert_int_equal(def.routes6[1].iface, 0);

    /* wire.conf: a 0-1 wire without rewriting, no addresses, no routes. */
    assert_string_equal(conf_get(&wire, "name")->text, "wire");
    assert_string_equal(conf_get(&wire, "mode")->text, "wire");
    assert_int_equal(conf_get(&wire, "wire.rewrite_mac")->num, 0);
    assert_int_equal(conf_get(&wire, "wire.pairs")->peer[0], 1);
    assert_int_equal(conf_get(&wire, "wire.pairs")->peer[1], 0);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];

        snprintf(key, sizeof(key), "port%u.address", n);
        assert_false(conf_get(&wire, key)->present);
        snprintf(key, sizeof(key), "port%u.address6", n);
        assert_false(conf_get(&wire, key)->present);
    }
    assert_int_equal(wire.nroutes, 0);
    assert_int_equal(wire.nroutes6, 0);
}

/* --- forwarding keys: mode, wire.*, portN.next_hop_mac, route, router.* ---------------------- */

/* Two ports with addresses, then the required keys: lines 1..6; tests append from line 7. */
#define ROUTER_KEYS                                                                                \
    "port0.address = 198.18.0.1/24\n"                                                              \
    "port1.address = 198.19.0.1/24\n" REQUIRED_KEYS

/* Assert that the header emitted for vals contains part. */
static void assert_header_has(const char *h, const char *part)
{
    if (strstr(h, part) == NULL) {
        fail_msg("header lacks '%s'", part);
    }
}

static void assert_lines_fit(const char *h)
{
    for (const char *line = h; *line != '\0'; line = strchr(line, '\n') + 1) {
        if (strcspn(line, "\n") > 100) {
            fail_msg("line over 100 columns: '%.*s'", (int)strcspn(line, "\n"), line);
        }
    }
}

static void test_mode(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_string_equal(conf_get(&vals, "mode")->text, "router"); /* the default */
    assert_int_equal(num_of("mode"), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "/* mode = router (default).");
    assert_header_has(h, "\n#define CONFIG_MODE_ROUTER 1\n#define CONFIG_MODE_WIRE 0\n");
    assert_null(strstr(h, "#define CONFIG_MODE "));
    free(h);
    assert_int_equal(parse(REQUIRED_KEYS "mode = wire\n"), 0);
    assert_int_equal(num_of("mode"), 1);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "/* mode = wire (line 5).");
    assert_header_has(h, "\n#define CONFIG_MODE_ROUTER 0\n#define CONFIG_MODE_WIRE 1\n");
    free(h);
    assert_one_bad_line("mode = bridge", "mode: 'bridge' is not one of router, wire");
    assert_one_bad_line("mode = Wire", "mode: 'Wire' is not one of router, wire");
    assert_one_bad_line("mode =", "mode: empty value");
}

/* Assert wire.pairs parsed to the peers a, b, c, d. */
static void assert_peers(int a, int b, int c, int d)
{
    const struct conf_value *v = conf_get(&vals, "wire.pairs");

    assert_true(v->present);
    assert_int_equal(v->peer[0], a);
    assert_int_equal(v->peer[1], b);
    assert_int_equal(v->peer[2], c);
    assert_int_equal(v->peer[3], d);
}

static void test_wire_pairs_valid(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_peers(1, 0, -1, -1); /* default 0-1 */
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "/* wire.pairs = 0-1 (default).");
    assert_header_has(h, "\n#define CONFIG_WIRE_PEER { 1, 0, -1, -1 }\n");
    assert_header_has(h, "\n#define CONFIG_WIRE_REWRITE_MAC 0\n");
    free(h);
    assert_int_equal(parse(REQUIRED_KEYS "wire.pairs = 0-1 2-3\n"), 0);
    assert_peers(1, 0, 3, 2);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_WIRE_PEER { 1, 0, 3, 2 }\n");
    free(h);
    assert_int_equal(parse(REQUIRED_KEYS "wire.pairs = 3-0\n"), 0);
    assert_peers(3, -1, -1, 0);
    assert_int_equal(parse(REQUIRED_KEYS "wire.pairs = 2-1   \t 3-0 # two pairs\n"), 0);
    assert_peers(3, 2, 1, 0);
    assert_string_equal(conf_get(&vals, "wire.pairs")->text, "2-1   \t 3-0");
    assert_int_equal(parse(REQUIRED_KEYS "wire.pairs = 2-3\n"), 0);
    assert_peers(-1, -1, 3, 2);
}

static void test_wire_pairs_errors(void **state)
{
    static const char *const not_pairs[] = { "0", "0-", "-1", "0-1-2", "a-b", "0:1", "0-1,2-3",
                                             "01-2", "0-01", "+0-1", "0--1", "0x1-2" };
    char line[128], msg[256];

    (void)state;
    for (size_t i = 0; i < sizeof(not_pairs) / sizeof(not_pairs[0]); i++) {
        snprintf(line, sizeof(line), "wire.pairs = %s", not_pairs[i]);
        snprintf(msg, sizeof(msg), "wire.pairs: '%s' is not a port pair: expected N-M, ports "
                 "0..3, pairs separated by spaces", not_pairs[i]);
        assert_one_bad_line(line, msg);
    }
    /* Spaces around '-' split a pair into words; the first bad word is named. */
    assert_one_bad_line("wire.pairs = 0 - 1", "wire.pairs: '0' is not a port pair: expected N-M, "
                                              "ports 0..3, pairs separated by spaces");
    assert_one_bad_line("wire.pairs = 0-1 2-4", "wire.pairs: '2-4' is not a port pair: expected "
                                                "N-M, ports 0..3, pairs separated by spaces");
    assert_one_bad_line("wire.pairs = 9999999999-0", "wire.pairs: '9999999999-0' is not a port "
                                                     "pair: expected N-M, ports 0..3, pairs "
                                                     "separated by spaces");
    assert_one_bad_line("wire.pairs = 1-1", "wire.pairs: '1-1' pairs port 1 with itself");
    assert_one_bad_line("wire.pairs = 0-1 1-2",
                        "wire.pairs: port 1 is in two pairs, '0-1' and '1-2'");
    assert_one_bad_line("wire.pairs = 0-1 2-0",
                        "wire.pairs: port 0 is in two pairs, '0-1' and '2-0'");
    assert_one_bad_line("wire.pairs = 0-1 0-1",
                        "wire.pairs: port 0 is in two pairs, '0-1' and '0-1'");
    assert_one_bad_line("wire.pairs =", "wire.pairs: empty value");
    assert_one_bad_line("wire.rewrite_mac = on", "wire.rewrite_mac: 'on': expected yes or no");
}

/* Assert key holds the MAC a:b:c:d:e:f. */
static void assert_mac(const char *key, const uint8_t *mac)
{
    const struct conf_value *v = conf_get(&vals, key);

    assert_true(v->present);
    assert_memory_equal(v->mac, mac, CONF_MAC_BYTES);
}

static void test_next_hop_mac_valid(void **state)
{
    static const uint8_t m0[] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    static const uint8_t m3[] = { 0xaa, 0xbb, 0xcc, 0x0d, 0xe0, 0xff };
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.next_hop_mac = 02:00:00:00:00:01\n"
                                         "port3.next_hop_mac = AA:bB:Cc:0D:e0:FF\n"),
                     0);
    assert_mac("port0.next_hop_mac", m0);
    assert_mac("port3.next_hop_mac", m3);
    assert_false(conf_get(&vals, "port1.next_hop_mac")->present);
    assert_string_equal(conf_get(&vals, "port3.next_hop_mac")->text, "AA:bB:Cc:0D:e0:FF");
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "/* port0.next_hop_mac = 02:00:00:00:00:01 (line 5).");
    assert_header_has(h, "\n#define CONFIG_PORT0_NEXT_HOP_HAS_MAC 1\n"
                         "#define CONFIG_PORT0_NEXT_HOP_MAC { 0x02, 0x00, 0x00, 0x00, 0x00, "
                         "0x01 }\n");
    assert_header_has(h, "/* port1.next_hop_mac not set (no default).");
    assert_header_has(h, "\n#define CONFIG_PORT1_NEXT_HOP_HAS_MAC 0\n"
                         "#define CONFIG_PORT1_NEXT_HOP_MAC { 0x00, 0x00, 0x00, 0x00, 0x00, "
                         "0x00 }\n");
    assert_header_has(h, "\n#define CONFIG_PORT3_NEXT_HOP_MAC { 0xaa, 0xbb, 0xcc, 0x0d, 0xe0, "
                         "0xff }\n");
    assert_header_has(h, "\n#define CONFIG_PORT_NEXT_HOP_MACS \\\n"
                         "    { { 1, { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } }, \\\n"
                         "      { 0, { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } }, \\\n"
                         "      { 0, { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } }, \\\n"
                         "      { 1, { 0xaa, 0xbb, 0xcc, 0x0d, 0xe0, 0xff } } }\n\n");
    /* Both aggregates follow every key's macros. */
    assert_true(strstr(h, "CONFIG_PORT_NEXT_HOP_MACS") > strstr(h, "CONFIG_PORT_ADDRESSES"));
    assert_true(strstr(h, "CONFIG_PORT_ADDRESSES") > strstr(h, "CONFIG_POLL_IDLE_US"));
    assert_lines_fit(h);
    free(h);
}

static void test_next_hop_mac_errors(void **state)
{
    static const char *const not_macs[] = {
        "02:00:00:00:00",       "02:00:00:00:00:01:02", "2:00:00:00:00:01",  "02:00:00:00:00:1",
        "02-00-00-00-00-01",    "0200.0000.0001",       "020000000001",      "02:00:00:00:00:0g",
        "02:00:00:00:00:001",   "02:00:00:00:00:01:",   ":02:00:00:00:00:01", "02::00:00:00:00:01",
        "0x2:00:00:00:00:01",   "02:00:00:00:00: 1",    "g2:00:00:00:00:01",
    };
    char line[128], msg[256];

    (void)state;
    for (size_t i = 0; i < sizeof(not_macs) / sizeof(not_macs[0]); i++) {
        snprintf(line, sizeof(line), "port1.next_hop_mac = %s", not_macs[i]);
        snprintf(msg, sizeof(msg), "port1.next_hop_mac: '%s' is not a MAC address: expected "
                 "aa:bb:cc:dd:ee:ff, six two-digit hex octets", not_macs[i]);
        assert_one_bad_line(line, msg);
    }
    assert_one_bad_line("port0.next_hop_mac = 00:00:00:00:00:00",
                        "port0.next_hop_mac: 00:00:00:00:00:00 is the all-zero address, not a "
                        "station's");
    assert_one_bad_line("port0.next_hop_mac = FF:ff:FF:ff:FF:ff",
                        "port0.next_hop_mac: ff:ff:ff:ff:ff:ff is the broadcast address");
    assert_one_bad_line("port2.next_hop_mac = 01:00:5E:00:00:01",
                        "port2.next_hop_mac: 01:00:5e:00:00:01 is a multicast address (group bit "
                        "set in the first octet)");
    assert_one_bad_line("port3.next_hop_mac = 33:33:00:00:00:01",
                        "port3.next_hop_mac: 33:33:00:00:00:01 is a multicast address (group bit "
                        "set in the first octet)");
    assert_one_bad_line("port3.next_hop_mac = 03:00:00:00:00:00",
                        "port3.next_hop_mac: 03:00:00:00:00:00 is a multicast address (group bit "
                        "set in the first octet)");
    assert_one_bad_line("port0.next_hop_mac =", "port0.next_hop_mac: empty value");
}

/* portN.pci: both spellings lspci prints, each into its number; the combined initializer. */
static void test_port_pci_valid(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.pci = 0000:03:00.1\nport2.pci = 1a:1F.7\n"
                                         "port3.pci = 00Ab:FF:00.0\n"), 0);
    assert_int_equal(conf_get(&vals, "port0.pci")->num, 0x0301);
    assert_int_equal(conf_get(&vals, "port2.pci")->num, 0x1AFF);
    assert_int_equal(conf_get(&vals, "port3.pci")->num, 0xABFF00);
    assert_false(conf_get(&vals, "port1.pci")->present);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_PORT0_SLOT_HAS_PCI 1\n#define CONFIG_PORT0_SLOT_PCI 0x000301\n");
    assert_header_has(h, "\n#define CONFIG_PORT1_SLOT_HAS_PCI 0\n");
    assert_header_has(h, "\n#define CONFIG_PORT_PCI \\\n    { { 1, 0x000301 }, \\\n      { 0, "
                         "0x000000 }, \\\n      { 1, 0x001aff }, \\\n      { 1, 0xab"
                         "ff00 } }\n");
    free(h);
}

static void test_port_pci_errors(void **state)
{
    static const char *const not_pci[] = { "3:00.0",       "03:0.0",      "03:00",
                                           "03:00.00",     "0:03:00.0",   "00000:03:00.0",
                                           "0000-03:00.0", "03.00.0",     "0g:00.0",
                                           "0000:03:00.0 x" };
    char line[128], msg[256];

    (void)state;
    for (size_t i = 0; i < sizeof(not_pci) / sizeof(not_pci[0]); i++) {
        snprintf(line, sizeof(line), "port1.pci = %s", not_pci[i]);
        snprintf(msg, sizeof(msg), "port1.pci: '%s' is not a PCI address: expected "
                 "ssss:bb:dd.f or bb:dd.f in hex, as lspci -D prints it (e.g. 0000:03:00.0)",
                 not_pci[i]);
        assert_one_bad_line(line, msg);
    }
    assert_one_bad_line("port0.pci = 00:20.0",
                        "port0.pci: '00:20.0': device 20 and function 0 must be 00..1f and 0..7");
    assert_one_bad_line("port0.pci = 00:02.8",
                        "port0.pci: '00:02.8': device 02 and function 8 must be 00..1f and 0..7");
    assert_int_equal(parse(REQUIRED_KEYS "port0.pci = 00:02.0\nport3.pci = 0000:00:02.0\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_string_equal(errs.list[0].msg,
                        "port3.pci: 0000:00:02.0 is already port0.pci (line 5)");
}

/* wire.rewrite_mac = yes in wire mode needs a next-hop MAC on every paired port. */
static void test_wire_rewrite_needs_macs(void **state)
{
    char *h;

    (void)state;
    /* Missing ones: line 0, after every line's errors and the missing required keys. */
    assert_int_equal(parse("mode = wire\n"                           /* 1 */
                           "wire.pairs = 0-1 2-3\n"                  /* 2 */
                           "wire.rewrite_mac = yes\n"                /* 3 */
                           "port0.next_hop_mac = 02:00:00:00:00:01\n" /* 4 */
                           "port2.next_hop_mac = 02:00:00:00:00:03\n" /* 5 */
                           "console.port = com1\n"                   /* 6 */
                           "console.baud = 115200\n"                 /* 7 */
                           "cores = 0\n"),                           /* 8 */
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 4);
    assert_error(0, 8, "cores: '0' out of range 1..64 (or 'all')");
    assert_error(1, 0, "missing required key 'panic'");
    assert_error(2, 0, "missing key 'port1.next_hop_mac': wire.rewrite_mac = yes (line 3) needs "
                       "a next-hop MAC for every port in wire.pairs");
    assert_error(3, 0, "missing key 'port3.next_hop_mac': wire.rewrite_mac = yes (line 3) needs "
                       "a next-hop MAC for every port in wire.pairs");
    /* The default pairs 0-1 count too; a port in no pair needs none. */
    assert_int_equal(parse(REQUIRED_KEYS "mode = wire\nwire.rewrite_mac = yes\n"
                                         "port1.next_hop_mac = 02:00:00:00:00:02\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 0, "missing key 'port0.next_hop_mac': wire.rewrite_mac = yes (line 6) needs "
                       "a next-hop MAC for every port in wire.pairs");
    /* A bad MAC is reported once, on its line, not also as missing. */
    assert_int_equal(parse(REQUIRED_KEYS "mode = wire\nwire.rewrite_mac = yes\n"
                                         "port0.next_hop_mac = 01:00:00:00:00:01\n"
                                         "port1.next_hop_mac = 02:00:00:00:00:02\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error_has(0, 7, "is a multicast address");
    /* Bad pairs or a bad rewrite_mac: only their own error. */
    assert_int_equal(parse(REQUIRED_KEYS "mode = wire\nwire.rewrite_mac = yes\n"
                                         "wire.pairs = 0-0\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 7, "wire.pairs: '0-0' pairs port 0 with itself");
    /* Not needed: rewriting off, or router mode (where wire.* is unused). */
    assert_int_equal(parse(REQUIRED_KEYS "mode = wire\nwire.rewrite_mac = no\n"), 0);
    assert_int_equal(parse(REQUIRED_KEYS "wire.rewrite_mac = yes\n"), 0);
    assert_int_equal(parse(REQUIRED_KEYS "mode = router\nwire.rewrite_mac = yes\n"
                                         "wire.pairs = 0-1 2-3\n"),
                     0);
    /* All there: valid, and emitted. */
    assert_int_equal(parse(REQUIRED_KEYS "port1.next_hop_mac = 02:00:00:00:00:02\n"
                                         "mode = wire\nwire.rewrite_mac = yes\n"
                                         "port0.next_hop_mac = 02:00:00:00:00:01\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_MODE_WIRE 1\n");
    assert_header_has(h, "\n#define CONFIG_WIRE_REWRITE_MAC 1\n");
    assert_header_has(h, "\n#define CONFIG_WIRE_PEER { 1, 0, -1, -1 }\n");
    assert_header_has(h, "    { { 1, { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } }, \\\n"
                         "      { 1, { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 } }, \\\n");
    free(h);
}

static void test_router_icmp_keys(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_int_equal(num_of("router.icmp_errors_per_sec"), 100);
    assert_int_equal(num_of("router.icmp_burst"), 10);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_ROUTER_ICMP_PER_SEC 100\n");
    assert_header_has(h, "\n#define CONFIG_ROUTER_ICMP_BURST 10\n");
    free(h);
    assert_int_equal(parse(REQUIRED_KEYS "router.icmp_errors_per_sec = 0\n"
                                         "router.icmp_burst = 1\n"),
                     0);
    assert_int_equal(num_of("router.icmp_errors_per_sec"), 0);
    assert_int_equal(num_of("router.icmp_burst"), 1);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_ROUTER_ICMP_PER_SEC 0\n");
    assert_header_has(h, "\n#define CONFIG_ROUTER_ICMP_BURST 1\n");
    free(h);
    assert_int_equal(parse(REQUIRED_KEYS "router.icmp_errors_per_sec = 100000\n"
                                         "router.icmp_burst = 1000\n"),
                     0);
    assert_int_equal(num_of("router.icmp_errors_per_sec"), 100000);
    assert_int_equal(num_of("router.icmp_burst"), 1000);
    assert_one_bad_line("router.icmp_errors_per_sec = 100001",
                        "router.icmp_errors_per_sec: '100001' out of range 0..100000");
    assert_one_bad_line("router.icmp_errors_per_sec = -1",
                        "router.icmp_errors_per_sec: '-1' is not a number: expected 0..100000");
    assert_one_bad_line("router.icmp_burst = 0", "router.icmp_burst: '0' out of range 1..1000");
    assert_one_bad_line("router.icmp_burst = 1001",
                        "router.icmp_burst: '1001' out of range 1..1000");
}

/* Assert route i is prefix/len, gateway (0: dev), port, from line. */
static void assert_route(unsigned i, uint32_t prefix, unsigned len, uint32_t gateway,
                         unsigned port, unsigned line)
{
    const struct conf_route *r;

    assert_true(i < vals.nroutes);
    r = &vals.routes[i];
    assert_int_equal(r->prefix, prefix);
    assert_int_equal(r->len, len);
    assert_int_equal(r->via, gateway != 0);
    assert_int_equal(r->gateway, gateway);
    assert_int_equal(r->iface, port);
    assert_int_equal(r->line, line);
}

static void test_routes_valid(void **state)
{
    (void)state;
    /* Repeated lines accepted, in file order; via finds the port, dev needs no address. */
    assert_int_equal(parse(ROUTER_KEYS "route = 198.51.100.0/24 via 198.19.0.2\n"
                                       "route = 198.51.100.128/25 via 198.18.0.2\n"
                                       "route\t=\t0.0.0.0/0   via\t198.18.0.254  # default\n"
                                       "route = 203.0.113.7/32 dev port3\n"
                                       "route = 10.0.0.0/8 dev port0\n"
                                       "route = 198.18.0.128/25 via 198.18.0.100\n"),
                     0);
    assert_int_equal(vals.nroutes, 6);
    assert_route(0, 0xc6336400, 24, 0xc6130002, 1, 7);
    assert_route(1, 0xc6336480, 25, 0xc6120002, 0, 8);
    assert_route(2, 0x00000000, 0, 0xc61200fe, 0, 9);
    assert_route(3, 0xcb007107, 32, 0, 3, 10);
    assert_route(4, 0x0a000000, 8, 0, 0, 11);
    /* Inside a port's subnet but longer than it: not the connected route itself. */
    assert_route(5, 0xc6120080, 25, 0xc6120064, 0, 12);
    assert_int_equal(conf_get(&vals, "route")->line, 7);
    assert_true(conf_get(&vals, "route")->present);
    /* The port addresses may come after the routes that need them. */
    assert_int_equal(parse("route = 198.51.100.0/24 via 198.19.0.2\n" REQUIRED_KEYS
                           "port1.address = 198.19.0.1/24\n"),
                     0);
    assert_route(0, 0xc6336400, 24, 0xc6130002, 1, 1);
    /* No route lines: an empty list. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_int_equal(vals.nroutes, 0);
    assert_false(conf_get(&vals, "route")->present);
    assert_int_equal(conf_get(&vals, "route")->line, 0);
}

static void test_route_syntax_errors(void **state)
{
    static const char *const bad_shape[] = {
        "10.0.0.0/8",          "10.0.0.0/8 via",          "10.0.0.0/8 through 198.18.0.2",
        "10.0.0.0/8 VIA 1.2.3.4", "via 198.18.0.2",       "10.0.0.0/8 via 1.2.3.4 dev port0",
        "10.0.0.0/8 dev",      "10.0.0.0/8 via 198.18.0.2 198.19.0.2",
    };
    char line[160], msg[320];

    (void)state;
    for (size_t i = 0; i < sizeof(bad_shape) / sizeof(bad_shape[0]); i++) {
        snprintf(line, sizeof(line), "route = %s", bad_shape[i]);
        snprintf(msg, sizeof(msg), "route: '%s': expected 'prefix/len via gateway' or "
                 "'prefix/len dev portN'", bad_shape[i]);
        assert_one_bad_line(line, msg);
    }
    /* The destination: as strict as a port address, any length 0..32, no host bits. */
    assert_one_bad_line("route = 10.1.2.3/8 via 198.18.0.2",
                        "route: 10.1.2.3/8 has host bits set (did you mean 10.0.0.0/8?)");
    assert_one_bad_line("route = 198.51.100.129/25 dev port1",
                        "route: 198.51.100.129/25 has host bits set (did you mean "
                        "198.51.100.128/25?)");
    assert_one_bad_line("route = 0.0.0.1/0 dev port0",
                        "route: 0.0.0.1/0 has host bits set (did you mean 0.0.0.0/0?)");
    assert_one_bad_line("route = 10.0.0.0 via 198.18.0.2",
                        "route: '10.0.0.0' has no prefix length: expected a.b.c.d/len, len 0..32");
    assert_one_bad_line("route = 10.0.0.0/33 via 198.18.0.2",
                        "route: '10.0.0.0/33': prefix length 33 out of range 0..32");
    assert_one_bad_line("route = 10.0.0.0/08 via 198.18.0.2",
                        "route: '10.0.0.0/08': prefix length '08' has a leading zero: write it "
                        "without");
    assert_one_bad_line("route = 010.0.0.0/8 via 198.18.0.2",
                        "route: '010.0.0.0/8': octet '010' has a leading zero (octal or "
                        "decimal?): write it without");
    assert_one_bad_line("route = 10.0.0/8 via 198.18.0.2",
                        "route: '10.0.0/8' is not an IPv4 address with prefix length: expected "
                        "a.b.c.d/len, four decimal octets 0..255");
    assert_one_bad_line("route = 10.0.0.256/8 via 198.18.0.2",
                        "route: '10.0.0.256/8': octet '256' out of range 0..255");
    /* The gateway: a dotted quad alone, as strict. */
    assert_one_bad_line("route = 10.0.0.0/8 via 198.18.0.2/24",
                        "route: gateway '198.18.0.2/24' is not an IPv4 address: expected a.b.c.d, "
                        "four decimal octets 0..255");
    assert_one_bad_line("route = 10.0.0.0/8 via gw1",
                        "route: gateway 'gw1' is not an IPv4 address: expected a.b.c.d, four "
                        "decimal octets 0..255");
    assert_one_bad_line("route = 10.0.0.0/8 via 198.18.0",
                        "route: gateway '198.18.0' is not an IPv4 address: expected a.b.c.d, four "
                        "decimal octets 0..255");
    assert_one_bad_line("route = 10.0.0.0/8 via 198.18.0.02",
                        "route: gateway '198.18.0.02': octet '02' has a leading zero (octal or "
                        "decimal?): write it without");
    assert_one_bad_line("route = 10.0.0.0/8 via 198.18.0.300",
                        "route: gateway '198.18.0.300': octet '300' out of range 0..255");
    /* dev: port0..port3 only. */
    assert_one_bad_line("route = 10.0.0.0/8 dev port4",
                        "route: 'port4' is not an interface: expected port0..port3, or "
                        "portN.VID (VID 1..4094) for a VLAN");
    assert_one_bad_line("route = 10.0.0.0/8 dev eth0",
                        "route: 'eth0' is not an interface: expected port0..port3, or "
                        "portN.VID (VID 1..4094) for a VLAN");
    assert_one_bad_line("route = 10.0.0.0/8 dev port01",
                        "route: 'port01' is not an interface: expected port0..port3, or "
                        "portN.VID (VID 1..4094) for a VLAN");
    assert_one_bad_line("route = 10.0.0.0/8 dev port",
                        "route: 'port' is not an interface: expected port0..port3, or "
                        "portN.VID (VID 1..4094) for a VLAN");
    assert_one_bad_line("route = 10.0.0.0/8 dev Port1",
                        "route: 'Port1' is not an interface: expected port0..port3, or "
                        "portN.VID (VID 1..4094) for a VLAN");
    assert_one_bad_line("route = 10.0.0.0/8 via 198.18.0.2#x",
                        "route: gateway '198.18.0.2#x' is not an IPv4 address: expected a.b.c.d, "
                        "four decimal octets 0..255");
    assert_one_bad_line("route =", "route: empty value");
}

static void test_route_checks_against_ports(void **state)
{
    (void)state;
    /* No port's subnet holds the gateway (no address at all here). */
    assert_one_bad_line("route = 10.0.0.0/8 via 10.9.9.9",
                        "route: gateway 10.9.9.9 is not on any interface's subnet");
    assert_int_equal(parse(ROUTER_KEYS "route = 10.0.0.0/8 via 10.9.9.9\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 7, "route: gateway 10.9.9.9 is not on any interface's subnet");
    /* The gateway must be a neighbour: not our own, network or broadcast address. */
    assert_int_equal(parse(ROUTER_KEYS "route = 10.0.0.0/8 via 198.19.0.1\n"
                                       "route = 10.1.0.0/16 via 198.18.0.0\n"
                                       "route = 10.2.0.0/16 via 198.18.0.255\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 3);
    assert_error(0, 7, "route: gateway 198.19.0.1 is port1's own address");
    assert_error(1, 8, "route: gateway 198.18.0.0 is the network address of port0's subnet "
                       "198.18.0.0/24");
    assert_error(2, 9, "route: gateway 198.18.0.255 is the broadcast address of port0's subnet "
                       "198.18.0.0/24");
    /* A port's own subnet is connected already, whichever way the line routes it. */
    assert_int_equal(parse(ROUTER_KEYS "route = 198.18.0.0/24 via 198.19.0.2\n"
                                       "route = 198.19.0.0/24 dev port1\n"
                                       "route = 198.19.0.0/24 dev port2\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 3);
    assert_error(0, 7, "route: 198.18.0.0/24 is already connected via port0 (port0.address, "
                       "line 1)");
    assert_error(1, 8, "route: 198.19.0.0/24 is already connected via port1 (port1.address, "
                       "line 2)");
    assert_error(2, 9, "route: duplicate route to 198.19.0.0/24 (first on line 8)");
    /* ... also when the address comes later in the file. */
    assert_int_equal(parse("route = 198.18.0.0/24 dev port0\n" REQUIRED_KEYS
                           "port0.address = 198.18.0.1/24\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 1, "route: 198.18.0.0/24 is already connected via port0 (port0.address, "
                       "line 6)");
    /* Same network, other length: a different route, accepted. */
    assert_int_equal(parse(ROUTER_KEYS "route = 198.18.0.0/23 via 198.19.0.2\n"
                                       "route = 198.18.0.0/25 via 198.18.0.3\n"),
                     0);
    /* An address with its own error may be the one the gateway meant: no second error. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.0/24\n"
                                         "route = 10.0.0.0/8 via 198.18.0.2\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 5, "port0.address: 198.18.0.0 is the network address of 198.18.0.0/24");
}

static void test_route_duplicates_and_limit(void **state)
{
    static char text[8192];

    (void)state;
    /* Same prefix/len twice, whatever the next hop: an error naming the first line. */
    assert_int_equal(parse(ROUTER_KEYS "route = 10.0.0.0/8 via 198.18.0.2\n"
                                       "route = 10.0.0.0/16 via 198.18.0.2\n"
                                       "route = 10.0.0.0/8 via 198.19.0.2\n"
                                       "route = 10.0.0.0/8 dev port3\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 9, "route: duplicate route to 10.0.0.0/8 (first on line 7)");
    assert_error(1, 10, "route: duplicate route to 10.0.0.0/8 (first on line 7)");
    /* A bad line is not a route: a later good one is no duplicate of it. */
    assert_int_equal(parse(ROUTER_KEYS "route = 10.0.0.0/8 via 10.9.9.9.9\n"
                                       "route = 10.0.0.0/8 via 198.18.0.2\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error_has(0, 7, "route: gateway '10.9.9.9.9'");
    assert_int_equal(vals.nroutes, 1);
    assert_int_equal(conf_get(&vals, "route")->line, 7);
    assert_string_equal(conf_get(&vals, "route")->text, "10.0.0.0/8 via 198.18.0.2");
    /* CONF_MAX_ROUTES lines are fine, one more is not. */
    snprintf(text, sizeof(text), "%s", ROUTER_KEYS);
    for (int i = 0; i < CONF_MAX_ROUTES; i++) {
        snprintf(text + strlen(text), sizeof(text) - strlen(text),
                 "route = 10.%d.0.0/16 via 198.18.0.2\n", i);
    }
    assert_int_equal(parse(text), 0);
    assert_int_equal(vals.nroutes, CONF_MAX_ROUTES);
    assert_route(CONF_MAX_ROUTES - 1, 0x0a3f0000, 16, 0xc6120002, 0, 6 + CONF_MAX_ROUTES);
    strcat(text, "route = 172.16.0.0/12 via 198.19.0.2\n");
    strcat(text, "route = 172.16.0.0/12 via 198.19.0.3\n");
    assert_int_equal(parse(text), WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 7 + CONF_MAX_ROUTES, "route: too many routes, at most 64");
    assert_error(1, 8 + CONF_MAX_ROUTES, "route: too many routes, at most 64");
}

/* Only `route` repeats: every other key, the new ones included, is still set once. */
static void test_other_keys_stay_single(void **state)
{
    static const char *const twice[] = {
        "mode = router",         "wire.pairs = 0-1",          "wire.rewrite_mac = no",
        "router.icmp_burst = 5", "router.icmp_errors_per_sec = 5",
        "port2.next_hop_mac = 02:00:00:00:00:01", "port1.address = 198.19.0.1/24", "name = x",
        "port3.address6 = 2001:db8::1/64",
    };
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(twice) / sizeof(twice[0]); i++) {
        char msg[128];

        snprintf(text, sizeof(text), REQUIRED_KEYS "%s\n%s\n", twice[i], twice[i]);
        assert_int_equal(parse(text), WS_ERR_INVAL);
        assert_int_equal(errs.count, 1);
        snprintf(msg, sizeof(msg), "duplicate key '%.*s' (first set on line 5)",
                 (int)strcspn(twice[i], " "), twice[i]);
        assert_error(0, 6, msg);
    }
}

/* neigh.static: address and MAC, on a port's subnet (checked at the file's end), one line per
 * address; emitted as a count and an initializer, a placeholder when there is none. */
static void test_static_neighbours(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(ROUTER_KEYS "neigh.static = 198.19.0.9 02:00:00:00:19:09\n"
                                       "neigh.static\t=  198.18.0.7\t02:AA:00:00:00:07  # x\n"),
                     0);
    assert_int_equal(vals.nneighs, 2);
    assert_int_equal(vals.neighs[0].ip, 0xc6130009);
    assert_int_equal(vals.neighs[0].iface, 1);
    assert_int_equal(vals.neighs[0].line, 7);
    assert_int_equal(vals.neighs[1].ip, 0xc6120007);
    assert_int_equal(vals.neighs[1].mac[1], 0xaa);
    assert_int_equal(vals.neighs[1].iface, 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_NSTATIC_NEIGHS 2\n"
                         "/* { ip, { mac }, iface } per static neighbour, in file order:\n"
                         " *   line 7: 198.19.0.9 (port1)\n"
                         " *   line 8: 198.18.0.7 (port0) */\n"
                         "#define CONFIG_STATIC_NEIGHS \\\n"
                         "    { { 0xc6130009u, { 0x02, 0x00, 0x00, 0x00, 0x19, 0x09 }, 1 }, \\\n"
                         "      { 0xc6120007u, { 0x02, 0xaa, 0x00, 0x00, 0x00, 0x07 }, 0 } }\n\n");
    assert_lines_fit(h);
    free(h);

    assert_int_equal(parse(ROUTER_KEYS "neigh.static = 198.20.0.7 02:00:00:00:00:77\n"
                                       "neigh.static = 198.19.0.1 02:00:00:00:00:77\n"
                                       "neigh.static = 198.19.0.9 ff:00:00:00:00:77\n"
                                       "neigh.static = 198.19.0.9\n"
                                       "neigh.static = 198.19.0.255 02:00:00:00:00:01\n"
                                       "neigh.static = 198.19.0.08 02:00:00:00:00:01\n"
                                       "neigh.static = 198.19.0.9 02:00:00:00:00:01\n"
                                       "neigh.static = 198.19.0.9 02:00:00:00:00:02\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 7);
    assert_error(0, 7, "neigh.static: neighbour 198.20.0.7 is not on any interface's subnet");
    assert_error(1, 8, "neigh.static: neighbour 198.19.0.1 is port1's own address");
    assert_error(2, 9, "neigh.static: ff:00:00:00:00:77 is a multicast address (group bit set in "
                       "the first octet)");
    assert_error(3, 10, "neigh.static: '198.19.0.9': expected 'a.b.c.d aa:bb:cc:dd:ee:ff' (an "
                        "address and its MAC)");
    assert_error(4, 11, "neigh.static: neighbour 198.19.0.255 is the broadcast address of "
                        "port1's subnet 198.19.0.0/24");
    assert_error(5, 12, "neigh.static: neighbour '198.19.0.08': octet '08' has a leading zero "
                        "(octal or decimal?): write it without");
    assert_error(6, 14, "neigh.static: 198.19.0.9 already has a MAC (line 13)");

    assert_int_equal(parse(REQUIRED_KEYS), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_NSTATIC_NEIGHS 0\n");
    assert_header_has(h, "\n#define CONFIG_STATIC_NEIGHS \\\n"
                         "    { { 0x00000000u, { 0, 0, 0, 0, 0, 0 }, 0 } }\n\n");
    free(h);
}

/* vlan: port and VID, an address on a subnet of its own; routes and neighbours find it by its
 * subnet or by name (dev portN.VID); emitted as a count and an initializer numbered after the
 * ports; a placeholder when there is none. */
static void test_vlans(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(ROUTER_KEYS "vlan = port0.10 198.20.10.1/24\n"
                                       "vlan =\tport0.20   198.20.20.1/25\n"
                                       "route = 10.0.0.0/8 via 198.20.20.5\n"
                                       "route = 10.1.0.0/16 dev port0.10\n"
                                       "neigh.static = 198.20.10.9 02:00:00:00:10:09\n"),
                     0);
    assert_int_equal(vals.nvlans, 2);
    assert_int_equal(vals.vlans[0].port, 0);
    assert_int_equal(vals.vlans[0].vid, 10);
    assert_int_equal(vals.vlans[0].ip, 0xc6140a01);
    assert_int_equal(vals.vlans[0].prefix, 24);
    assert_int_equal(vals.vlans[1].vid, 20);
    assert_int_equal(vals.vlans[1].prefix, 25);
    assert_int_equal(vals.routes[0].iface, 5);
    assert_int_equal(vals.routes[1].iface, 4);
    assert_int_equal(vals.neighs[0].iface, 4);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_NVLANS 2\n"
                         "/* { port, vid, ip, prefix } per VLAN sub-interface, in file order:\n"
                         " *   line 7: port0.10 198.20.10.1/24 (interface 4)\n"
                         " *   line 8: port0.20 198.20.20.1/25 (interface 5) */\n"
                         "#define CONFIG_VLANS \\\n"
                         "    { { 0, 10, 0xc6140a01u, 24 }, \\\n"
                         "      { 0, 20, 0xc6141401u, 25 } }\n\n");
    assert_header_has(h, " *   line 9: 10.0.0.0/8 via 198.20.20.5 (port0.20)\n"
                         " *   line 10: 10.1.0.0/16 dev port0.10 */\n");
    assert_header_has(h, " *   line 11: 198.20.10.9 (port0.10) */\n");
    assert_lines_fit(h);
    free(h);

    assert_int_equal(parse(ROUTER_KEYS "vlan = port0.10 198.20.10.1/24\n"
                                       "vlan = port0.10 198.21.0.1/24\n"
                                       "vlan = port4.10 198.21.0.1/24\n"
                                       "vlan = port0.4095 198.21.0.1/24\n"
                                       "vlan = port0.0 198.21.0.1/24\n"
                                       "vlan = port1 198.21.0.1/24\n"
                                       "vlan = port1.7 198.19.0.7/24\n"
                                       "vlan = port1.8 198.20.0.1/16\n"
                                       "vlan = port1.9 198.21.0.0/24\n"
                                       "vlan = port1.9\n"
                                       "route = 10.9.0.0/16 dev port1.7\n"
                                       "route = 198.20.10.0/24 via 198.18.0.2\n"
                                       "port2.address = 198.20.10.77/28\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 12);
    assert_error(0, 8, "vlan: port0.10 is already defined (line 7)");
    assert_error(1, 9, "vlan: 'port4.10' is not a VLAN sub-interface: expected portN.VID, port "
                       "0..3, VID 1..4094");
    assert_error(2, 10, "vlan: 'port0.4095' is not a VLAN sub-interface: expected portN.VID, port "
                        "0..3, VID 1..4094");
    assert_error(3, 11, "vlan: 'port0.0' is not a VLAN sub-interface: expected portN.VID, port "
                        "0..3, VID 1..4094");
    assert_error(4, 12, "vlan: 'port1' is not a VLAN sub-interface: expected portN.VID, port "
                        "0..3, VID 1..4094");
    assert_error(5, 13, "vlan: 198.19.0.7/24 is in the same subnet 198.19.0.0/24 as "
                        "port1.address (line 2)");
    assert_error(6, 14, "vlan: subnet 198.20.0.0/16 overlaps subnet 198.20.10.0/24 of vlan "
                        "port0.10 (line 7)");
    assert_error(7, 15, "vlan: 198.21.0.0 is the network address of 198.21.0.0/24");
    assert_error(8, 16, "vlan: 'port1.9': expected 'portN.VID a.b.c.d/len' (a port's VLAN and "
                        "its address)");
    assert_error(9, 17, "route: port1.7 is not a VLAN sub-interface: no `vlan = port1.7 ...` "
                        "line");
    assert_error(10, 18, "route: 198.20.10.0/24 is already connected via port0.10 (vlan, line "
                         "7)");
    assert_error(11, 19, "port2.address: subnet 198.20.10.64/28 overlaps subnet 198.20.10.0/24 "
                         "of vlan port0.10 (line 7)");

    assert_int_equal(parse(REQUIRED_KEYS), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n#define CONFIG_NVLANS 0\n");
    assert_header_has(h, "\n#define CONFIG_VLANS \\\n    { { 0, 0, 0x00000000u, 0 } }\n\n");
    free(h);
}

static void test_emitted_routes(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(ROUTER_KEYS "route = 198.51.100.0/24 via 198.19.0.2\n"
                                       "route = 0.0.0.0/0 via 198.18.0.254\n"
                                       "route = 203.0.113.7/32 dev port3\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n/* route: 3 lines. A static route, one per line.");
    assert_header_has(h, "\n#define CONFIG_NROUTES 3\n"
                         "/* { prefix, len, gateway (0: dev), iface } per route, in file order:\n"
                         " *   line 7: 198.51.100.0/24 via 198.19.0.2 (port1)\n"
                         " *   line 8: 0.0.0.0/0 via 198.18.0.254 (port0)\n"
                         " *   line 9: 203.0.113.7/32 dev port3 */\n"
                         "#define CONFIG_ROUTES \\\n"
                         "    { { 0xc6336400u, 24, 0xc6130002u, 1 }, \\\n"
                         "      { 0x00000000u, 0, 0xc61200feu, 0 }, \\\n"
                         "      { 0xcb007107u, 32, 0x00000000u, 3 } }\n\n");
    /* In table order: after the mode, before the router keys. */
    assert_true(strstr(h, "CONFIG_NROUTES") > strstr(h, "CONFIG_MODE_WIRE"));
    assert_true(strstr(h, "CONFIG_ROUTER_ICMP_PER_SEC") > strstr(h, "CONFIG_ROUTES"));
    assert_lines_fit(h);
    free(h);
    /* One route: no trailing comma. */
    assert_int_equal(parse(ROUTER_KEYS "route = 10.0.0.0/8 via 198.19.0.200\n"), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n/* route: 1 line. A static route, one per line.");
    assert_header_has(h, "\n#define CONFIG_NROUTES 1\n");
    assert_header_has(h, "\n#define CONFIG_ROUTES \\\n"
                         "    { { 0x0a000000u, 8, 0xc61300c8u, 1 } }\n\n");
    free(h);
    /* None: a count of 0 and a placeholder, so the initializer is never empty. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n/* route: no lines. A static route, one per line.");
    assert_header_has(h, "\n#define CONFIG_NROUTES 0\n");
    assert_header_has(h, "\n#define CONFIG_ROUTES \\\n"
                         "    { { 0x00000000u, 0, 0x00000000u, 0 } }\n\n");
    assert_lines_fit(h);
    free(h);
}

/* --- IPv6: portN.address6 and route6 ------------------------------------------------------- */

/* Two ports with IPv6 addresses, then the required keys: lines 1..6; tests append from line 7. */
#define ROUTER6_KEYS                                                                               \
    "port0.address6 = 2001:db8:18::1/64\n"                                                         \
    "port1.address6 = 2001:db8:19::1/64\n" REQUIRED_KEYS

/* Assert an address6 key holds the address text (parsed here with inet_pton) and prefix. */
static void assert_address6(const char *key, const char *addr, unsigned prefix)
{
    const struct conf_value *v = conf_get(&vals, key);
    uint8_t want[CONF_IPV6_BYTES];

    assert_non_null(v);
    assert_true(v->present);
    assert_int_equal(inet_pton(AF_INET6, addr, want), 1);
    assert_memory_equal(v->ip6, want, CONF_IPV6_BYTES);
    assert_int_equal(v->prefix, prefix);
}

static void test_address6_valid(void **state)
{
    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8:18::1/64\n"
                                         "port1.address6=2001:DB8:19:0:0:0:0:1/64 # upper case\n"
                                         "port2.address6 = fd00:1:2:3::a/48\n"
                                         "port3.address6 = 2001:db8:ffff::1/128\n"),
                     0);
    assert_address6("port0.address6", "2001:db8:18::1", 64);
    assert_address6("port1.address6", "2001:db8:19::1", 64);
    assert_address6("port2.address6", "fd00:1:2:3::a", 48); /* unique-local, RFC 4193 */
    assert_address6("port3.address6", "2001:db8:ffff::1", 128);
    assert_string_equal(conf_get(&vals, "port1.address6")->text, "2001:DB8:19:0:0:0:0:1/64");
    assert_int_equal(conf_get(&vals, "port0.address6")->line, 5);
    /* The length edges; /127 and /128 have no subnet-router anycast address to refuse. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8::1/16\n"
                                         "port1.address6 = 2002::/127\n"
                                         "port2.address6 = 2003::/128\n"
                                         "port3.address6 = 2004::1:2.3.4.5/96\n"),
                     0);
    assert_address6("port0.address6", "2001:db8::1", 16);
    assert_address6("port1.address6", "2002::", 127);
    assert_address6("port2.address6", "2003::", 128);
    assert_address6("port3.address6", "2004::1:203:405", 96);
    /* IPv4 and IPv6 on one port are independent; unset stays unset. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address = 198.18.0.1/24\n"
                                         "port0.address6 = 2001:db8:18::1/64\n"),
                     0);
    assert_address("port0.address", 0xc6120001, 24);
    assert_address6("port0.address6", "2001:db8:18::1", 64);
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];
        static const uint8_t zero[CONF_IPV6_BYTES];

        snprintf(key, sizeof(key), "port%u.address6", n);
        assert_false(conf_get(&vals, key)->present);
        assert_int_equal(conf_get(&vals, key)->line, 0);
        assert_memory_equal(conf_get(&vals, key)->ip6, zero, CONF_IPV6_BYTES);
    }
    /* Wire mode: checked like any key, unused (the firmware gives no port IPv6 then). */
    assert_int_equal(parse(ROUTER6_KEYS "mode = wire\nroute6 = ::/0 via 2001:db8:18::2\n"), 0);
    assert_int_equal(parse(REQUIRED_KEYS "mode = wire\nport0.address6 = fe80::1/64\n"),
                     WS_ERR_INVAL);
    assert_error_has(0, 6, "port0.address6: fe80::1 is a link-local address");
}

static void test_address6_syntax(void **state)
{
    static const char *const not_addrs[] = {
        "2001:db8::g/64",  "2001:db8:::1/64",   "2001:db8::1::2/64", "1:2:3:4:5:6:7:8:9/64",
        "12345::1/64",     "2001:db8::1 /64",   "[2001:db8::1]/64",  "fe80::1%eth0/64",
        "198.18.0.1/64",   "/64",               "2001:db8::1.2.3/64", ":1::2/64",
        "::ffff:1.2.3.04/96", "2001:0db8:0000:0000:0000:0000:0000:0001:0/64",
    };
    char line[160], msg[320];

    (void)state;
    for (size_t i = 0; i < sizeof(not_addrs) / sizeof(not_addrs[0]); i++) {
        snprintf(line, sizeof(line), "port1.address6 = %s", not_addrs[i]);
        snprintf(msg, sizeof(msg), "port1.address6: '%s' is not an IPv6 address with prefix "
                 "length: expected x:x::x/len, hex groups of RFC 4291 2.2 (e.g. 2001:db8::1/64)",
                 not_addrs[i]);
        assert_one_bad_line(line, msg);
    }
    assert_one_bad_line("port0.address6 = 2001:db8::1",
                        "port0.address6: '2001:db8::1' has no prefix length: expected "
                        "x:x::x/len, len 16..128");
    assert_one_bad_line("port0.address6 = 2001:db8::1/15",
                        "port0.address6: '2001:db8::1/15': prefix length 15 out of range 16..128");
    assert_one_bad_line("port0.address6 = 2001:db8::1/129",
                        "port0.address6: '2001:db8::1/129': prefix length 129 out of range "
                        "16..128");
    assert_one_bad_line("port0.address6 = 2001:db8::1/064",
                        "port0.address6: '2001:db8::1/064': prefix length '064' has a leading "
                        "zero: write it without");
    assert_one_bad_line("port0.address6 = 2001:db8::1/",
                        "port0.address6: '2001:db8::1/': prefix length '' is not a number: "
                        "expected 16..128");
    assert_one_bad_line("port0.address6 = 2001:db8::1/64/64",
                        "port0.address6: '2001:db8::1/64/64': prefix length '64/64' is not a "
                        "number: expected 16..128");
    assert_one_bad_line("port0.address6 = 2001:db8::1/0x40",
                        "port0.address6: '2001:db8::1/0x40': prefix length '0x40' is not a "
                        "number: expected 16..128");
    assert_one_bad_line("port0.address6 = 2001:db8::1/99999999999",
                        "port0.address6: '2001:db8::1/99999999999': prefix length 99999999999 "
                        "out of range 16..128");
    assert_one_bad_line("port0.address6 =", "port0.address6: empty value");
}

static void test_address6_unusable(void **state)
{
    (void)state;
    assert_one_bad_line("port0.address6 = ff02::1/64",
                        "port0.address6: ff02::1 is a multicast address (ff00::/8)");
    assert_one_bad_line("port0.address6 = ff0e:db8::1/64",
                        "port0.address6: ff0e:db8::1 is a multicast address (ff00::/8)");
    assert_one_bad_line("port0.address6 = fe80::1/64",
                        "port0.address6: fe80::1 is a link-local address (fe80::/10): derived "
                        "from the MAC automatically; give a global or unique-local address");
    assert_one_bad_line("port2.address6 = FEBF:ffff::1/64",
                        "port2.address6: febf:ffff::1 is a link-local address (fe80::/10): "
                        "derived from the MAC automatically; give a global or unique-local "
                        "address");
    assert_one_bad_line("port0.address6 = ::/64",
                        "port0.address6: :: is the unspecified address (::)");
    assert_one_bad_line("port0.address6 = ::/128",
                        "port0.address6: :: is the unspecified address (::)");
    assert_one_bad_line("port0.address6 = ::1/128",
                        "port0.address6: ::1 is the loopback address (::1)");
    assert_one_bad_line("port0.address6 = ::ffff:198.18.0.1/120",
                        "port0.address6: ::ffff:198.18.0.1 is an IPv4-mapped address "
                        "(::ffff:0:0/96)");
    /* Host bits all zero below /127: the subnet-router anycast address (RFC 4291 2.6.1). */
    assert_one_bad_line("port0.address6 = 2001:db8:18::/64",
                        "port0.address6: 2001:db8:18:: is the subnet-router anycast address of "
                        "2001:db8:18::/64 (host bits all zero, RFC 4291 2.6.1): give a host "
                        "address");
    assert_one_bad_line("port3.address6 = 2001:db8:18:0:0:0:0:0/126",
                        "port3.address6: 2001:db8:18:: is the subnet-router anycast address of "
                        "2001:db8:18::/126 (host bits all zero, RFC 4291 2.6.1): give a host "
                        "address");
    /* The first 64 bits may end in zeros; only the host part counts. fec0:: (site-local, long
     * deprecated) and other unicast ranges are not refused. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8::8000:0:0:0/48\n"
                                         "port1.address6 = fec0::1/64\n"),
                     0);
    /* The error is on the address's own line. */
    assert_int_equal(parse(REQUIRED_KEYS "\nport3.address6 = ::1/128\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 6, "port3.address6: ::1 is the loopback address (::1)");
}

static void test_address6_prefixes_overlap(void **state)
{
    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8:18::1/64\n"
                                         "port1.address6 = 2001:db8:18::2/64\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 6, "port1.address6: 2001:db8:18::2/64 is in the same prefix 2001:db8:18::/64 "
                       "as port0.address6 (line 5)");
    assert_false(conf_get(&vals, "port1.address6")->present);
    /* "Later" is by line, not by port number; wider and narrower prefixes. */
    assert_int_equal(parse("port2.address6 = 2001:db8:18::1/64\n" REQUIRED_KEYS
                           "port0.address6 = 2001:db8::1/32\n"
                           "port1.address6 = 2001:db8:18::8:1/112\n"
                           "port3.address6 = 2001:db8:18::1/128\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 3);
    assert_error(0, 6, "port0.address6: prefix 2001:db8::/32 overlaps prefix 2001:db8:18::/64 of "
                       "port2.address6 (line 1)");
    assert_error(1, 7, "port1.address6: prefix 2001:db8:18::8:0/112 overlaps prefix "
                       "2001:db8:18::/64 of port2.address6 (line 1)");
    assert_error(2, 8, "port3.address6: prefix 2001:db8:18::1/128 overlaps prefix "
                       "2001:db8:18::/64 of port2.address6 (line 1)");
    /* Neighbouring prefixes do not overlap; IPv4 subnets are another space. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8:18::1/64\n"
                                         "port1.address6 = 2001:db8:19::1/64\n"
                                         "port2.address6 = 2001:db8:18:1::1/64\n"
                                         "port3.address6 = 2001:db8:1a::1/127\n"
                                         "port0.address = 198.18.0.1/24\n"),
                     0);
    /* A bad address6 is not compared (its own error suffices) and hides no later one. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8::/64\n"
                                         "port1.address6 = 2001:db8::1/64\n"
                                         "port2.address6 = 2001:db8::2/64\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error_has(0, 5, "subnet-router anycast");
    assert_error(1, 7, "port2.address6: 2001:db8::2/64 is in the same prefix 2001:db8::/64 as "
                       "port1.address6 (line 6)");
}

/* Assert route6 i is prefix/len, gateway (NULL: none), dev port (-1: none), egress, line. */
static void assert_route6(unsigned i, const char *prefix, unsigned len, const char *gateway,
                          int dev, unsigned iface, unsigned line)
{
    uint8_t want[CONF_IPV6_BYTES] = { 0 };
    const struct conf_route6 *r;

    assert_true(i < vals.nroutes6);
    r = &vals.routes6[i];
    assert_int_equal(inet_pton(AF_INET6, prefix, want), 1);
    assert_memory_equal(r->prefix, want, CONF_IPV6_BYTES);
    assert_int_equal(r->len, len);
    assert_int_equal(r->via, gateway != NULL);
    memset(want, 0, sizeof(want));
    if (gateway != NULL) {
        assert_int_equal(inet_pton(AF_INET6, gateway, want), 1);
    }
    assert_memory_equal(r->gateway, want, CONF_IPV6_BYTES);
    assert_int_equal(r->dev, dev >= 0);
    if (dev >= 0) {
        assert_int_equal(r->dev_port, dev);
    }
    assert_int_equal(r->iface, iface);
    assert_int_equal(r->line, line);
}

static void test_routes6_valid(void **state)
{
    (void)state;
    assert_int_equal(parse(ROUTER6_KEYS "route6 = 2001:db8:100::/48 via 2001:db8:19::2\n"
                                        "route6 = 2001:db8:100:8000::/49 via 2001:db8:18::2\n"
                                        "route6\t=\t::/0   via\tfe80::1  dev port0  # default\n"
                                        "route6 = 2001:db8:200::/40 dev port1\n"
                                        "route6 = 2001:db8:300::1/128 via 2001:db8:19::fe dev "
                                        "port1\n"
                                        "route6 = 2001:db8:18:1::/64 via FE80::2:3 dev port1\n"
                                        "route6 = 2001:db8:18::/65 via 2001:db8:18::3\n"),
                     0);
    assert_int_equal(vals.nroutes6, 7);
    assert_route6(0, "2001:db8:100::", 48, "2001:db8:19::2", -1, 1, 7);
    assert_route6(1, "2001:db8:100:8000::", 49, "2001:db8:18::2", -1, 0, 8);
    assert_route6(2, "::", 0, "fe80::1", 0, 0, 9);
    assert_route6(3, "2001:db8:200::", 40, NULL, 1, 1, 10);
    assert_route6(4, "2001:db8:300::1", 128, "2001:db8:19::fe", 1, 1, 11);
    assert_route6(5, "2001:db8:18:1::", 64, "fe80::2:3", 1, 1, 12);
    /* Inside a port's prefix but longer than it: not the connected route itself. */
    assert_route6(6, "2001:db8:18::", 65, "2001:db8:18::3", -1, 0, 13);
    assert_int_equal(conf_get(&vals, "route6")->line, 7);
    assert_true(conf_get(&vals, "route6")->present);
    /* The addresses may come after the routes that need them. */
    assert_int_equal(parse("route6 = 2001:db8:100::/48 via 2001:db8:19::2\n"
                           "route6 = 2001:db8:200::/48 dev port3\n" REQUIRED_KEYS
                           "port3.address6 = 2001:db8:3::1/64\n"
                           "port1.address6 = 2001:db8:19::1/64\n"),
                     0);
    assert_route6(0, "2001:db8:100::", 48, "2001:db8:19::2", -1, 1, 1);
    assert_route6(1, "2001:db8:200::", 48, NULL, 3, 3, 2);
    /* IPv4 and IPv6 routes are separate lists. */
    assert_int_equal(vals.nroutes, 0);
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    assert_int_equal(vals.nroutes6, 0);
    assert_false(conf_get(&vals, "route6")->present);
    assert_int_equal(conf_get(&vals, "route6")->line, 0);
}

static void test_route6_syntax_errors(void **state)
{
    static const char *const bad_shape[] = {
        "2001:db8::/32",
        "2001:db8::/32 via",
        "2001:db8::/32 through 2001:db8:18::2",
        "2001:db8::/32 VIA 2001:db8:18::2",
        "via 2001:db8:18::2",
        "2001:db8::/32 dev",
        "2001:db8::/32 dev port0 via fe80::1",
        "2001:db8::/32 via fe80::1 dev",
        "2001:db8::/32 via fe80::1 port0 dev",
        "2001:db8::/32 via fe80::1 dev port0 x",
        "2001:db8::/32 via 2001:db8:18::2 2001:db8:19::2",
    };
    char line[160], msg[320];

    (void)state;
    for (size_t i = 0; i < sizeof(bad_shape) / sizeof(bad_shape[0]); i++) {
        snprintf(line, sizeof(line), "route6 = %s", bad_shape[i]);
        snprintf(msg, sizeof(msg), "route6: '%s': expected 'prefix/len via gateway', 'prefix/len "
                 "via fe80::X dev portN' or 'prefix/len dev portN'", bad_shape[i]);
        assert_one_bad_line(line, msg);
    }
    /* The destination: as strict as a port's address6, any length 0..128, no host bits. */
    assert_one_bad_line("route6 = 2001:db8:100::1/48 via 2001:db8:18::2",
                        "route6: 2001:db8:100::1/48 has host bits set (did you mean "
                        "2001:db8:100::/48?)");
    assert_one_bad_line("route6 = 2001:db8:100:8000::/48 dev port0",
                        "route6: 2001:db8:100:8000::/48 has host bits set (did you mean "
                        "2001:db8:100::/48?)");
    assert_one_bad_line("route6 = ::1/0 dev port0",
                        "route6: ::1/0 has host bits set (did you mean ::/0?)");
    assert_one_bad_line("route6 = 2001:db8:: via 2001:db8:18::2",
                        "route6: '2001:db8::' has no prefix length: expected x:x::x/len, len "
                        "0..128");
    assert_one_bad_line("route6 = 2001:db8::/129 via 2001:db8:18::2",
                        "route6: '2001:db8::/129': prefix length 129 out of range 0..128");
    assert_one_bad_line("route6 = 2001:db8::/032 via 2001:db8:18::2",
                        "route6: '2001:db8::/032': prefix length '032' has a leading zero: write "
                        "it without");
    assert_one_bad_line("route6 = 2001:db8:::/32 via 2001:db8:18::2",
                        "route6: '2001:db8:::/32' is not an IPv6 address with prefix length: "
                        "expected x:x::x/len, hex groups of RFC 4291 2.2 (e.g. 2001:db8::1/64)");
    assert_one_bad_line("route6 = 10.0.0.0/8 via 2001:db8:18::2",
                        "route6: '10.0.0.0/8' is not an IPv6 address with prefix length: "
                        "expected x:x::x/len, hex groups of RFC 4291 2.2 (e.g. 2001:db8::1/64)");
    /* The gateway: an address alone, a unicast one a neighbour may have. */
    static const char *const not_gateways[] = { "2001:db8:18::2/64", "198.18.0.2", "gw1",
                                                "fe80::1%port0", "2001:db8:18::2#x", "::g" };
    for (size_t i = 0; i < sizeof(not_gateways) / sizeof(not_gateways[0]); i++) {
        snprintf(line, sizeof(line), "route6 = 2001:db8::/32 via %s", not_gateways[i]);
        snprintf(msg, sizeof(msg), "route6: gateway '%s' is not an IPv6 address: expected x:x::x, "
                 "hex groups of RFC 4291 2.2 (e.g. 2001:db8::2 or fe80::1)", not_gateways[i]);
        assert_one_bad_line(line, msg);
    }
    assert_one_bad_line("route6 = 2001:db8::/32 via ff02::2",
                        "route6: gateway ff02::2 is a multicast address (ff00::/8)");
    assert_one_bad_line("route6 = 2001:db8::/32 via ff02::2 dev port0",
                        "route6: gateway ff02::2 is a multicast address (ff00::/8)");
    assert_one_bad_line("route6 = 2001:db8::/32 via ::",
                        "route6: gateway :: is the unspecified address (::)");
    assert_one_bad_line("route6 = 2001:db8::/32 via ::1",
                        "route6: gateway ::1 is the loopback address (::1)");
    assert_one_bad_line("route6 = 2001:db8::/32 via ::ffff:198.18.0.2",
                        "route6: gateway ::ffff:198.18.0.2 is an IPv4-mapped address "
                        "(::ffff:0:0/96)");
    /* A link-local gateway is on every link: it needs its port. */
    assert_one_bad_line("route6 = 2001:db8::/32 via fe80::1",
                        "route6: link-local gateway fe80::1 needs its port: write 'via fe80::1 "
                        "dev portN'");
    assert_one_bad_line("route6 = 2001:db8::/32 via FE80:0::0:1",
                        "route6: link-local gateway fe80::1 needs its port: write 'via fe80::1 "
                        "dev portN'");
    /* dev: port0..port3 only, no VLAN sub-interface. */
    static const char *const not_ports[] = { "port4", "eth0", "port01", "port", "Port1",
                                             "port1.0", "port1.4095" };
    for (size_t i = 0; i < sizeof(not_ports) / sizeof(not_ports[0]); i++) {
        snprintf(line, sizeof(line), "route6 = 2001:db8::/32 dev %s", not_ports[i]);
        snprintf(msg, sizeof(msg), "route6: '%s' is not a port: expected port0..port3",
                 not_ports[i]);
        assert_one_bad_line(line, msg);
    }
    assert_one_bad_line("route6 = 2001:db8::/32 dev port0.10",
                        "route6: dev port0.10: IPv6 on VLAN sub-interfaces is not supported");
    assert_one_bad_line("route6 = 2001:db8::/32 via fe80::1 dev port2.4094",
                        "route6: dev port2.4094: IPv6 on VLAN sub-interfaces is not supported");
    assert_one_bad_line("route6 =", "route6: empty value");
}

static void test_route6_checks_against_ports(void **state)
{
    (void)state;
    /* No address6 at all: a global gateway is on no prefix, a dev port has no address6. */
    assert_one_bad_line("route6 = 2001:db8::/32 via 2001:db8:18::2",
                        "route6: gateway 2001:db8:18::2 is not on any port's address6 prefix");
    assert_one_bad_line("route6 = 2001:db8::/32 dev port2", "route6: port2 has no address6");
    assert_one_bad_line("route6 = 2001:db8::/32 via fe80::1 dev port3",
                        "route6: port3 has no address6");
    /* With addresses: checked at the file's end, reported on the route's line, in line order
     * among the other lines' errors. */
    assert_int_equal(parse(ROUTER6_KEYS "route6 = 2001:db8:100::/48 via 2001:db8:99::2\n" /* 7 */
                                        "bogus = 1\n"                                     /* 8 */
                                        "route6 = 2001:db8:101::/48 via 2001:db8:19::1\n" /* 9 */
                                        "route6 = 2001:db8:102::/48 dev port2\n"          /* 10 */
                                        "route6 = 2001:db8:103::/48 via fe80::1 dev port3\n"
                                        "route6 = 2001:db8:104::/48 via 2001:db8:18::5 dev "
                                        "port1\n"                                         /* 12 */
                                        "route6 = 2001:db8:18::/64 dev port0\n"           /* 13 */
                                        "route6 = 2001:db8:19::/64 via 2001:db8:18::2\n"  /* 14 */
                                        "route6 = 2001:db8:19::/64 dev port1\n"),         /* 15 */
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 9);
    assert_error(0, 7, "route6: gateway 2001:db8:99::2 is not on any port's address6 prefix");
    assert_error(1, 8, "unknown key 'bogus'");
    assert_error(2, 9, "route6: gateway 2001:db8:19::1 is port1's own address");
    assert_error(3, 10, "route6: port2 has no address6");
    assert_error(4, 11, "route6: port3 has no address6");
    assert_error(5, 12, "route6: gateway 2001:db8:18::5 is on port0's prefix 2001:db8:18::/64, "
                        "not on port1");
    assert_error(6, 13, "route6: 2001:db8:18::/64 is already connected via port0 "
                        "(port0.address6, line 1)");
    assert_error(7, 14, "route6: 2001:db8:19::/64 is already connected via port1 "
                        "(port1.address6, line 2)");
    /* Found as the lines are read: line 14 is a route, whatever the end-of-file checks say. */
    assert_error(8, 15, "route6: duplicate route to 2001:db8:19::/64 (first on line 14)");
    /* ... also when the address comes later in the file. */
    assert_int_equal(parse("route6 = 2001:db8:18::/64 dev port0\n" REQUIRED_KEYS
                           "port0.address6 = 2001:db8:18::1/64\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 1, "route6: 2001:db8:18::/64 is already connected via port0 (port0.address6, "
                       "line 6)");
    /* An IPv4 address is no IPv6 port, and an IPv4 route no IPv6 one. */
    assert_int_equal(parse(ROUTER_KEYS "route6 = 2001:db8::/32 dev port0\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 7, "route6: port0 has no address6");
    /* An address6 with its own error may be the one meant: no second error. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8:18::/64\n"
                                         "route6 = 2001:db8::/32 via 2001:db8:18::2\n"
                                         "route6 = 2001:db9::/32 dev port0\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error_has(0, 5, "port0.address6: 2001:db8:18:: is the subnet-router anycast address");
}

static void test_route6_duplicates_and_limit(void **state)
{
    static char text[8192];

    (void)state;
    /* Same prefix/len twice, however written and whatever the next hop. */
    assert_int_equal(parse(ROUTER6_KEYS "route6 = 2001:db8:100::/48 via 2001:db8:18::2\n"
                                        "route6 = 2001:db8:100::/56 via 2001:db8:18::2\n"
                                        "route6 = 2001:DB8:100:0::/48 via 2001:db8:19::2\n"
                                        "route6 = 2001:db8:100::/48 dev port1\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 9, "route6: duplicate route to 2001:db8:100::/48 (first on line 7)");
    assert_error(1, 10, "route6: duplicate route to 2001:db8:100::/48 (first on line 7)");
    /* A bad line is not a route: a later good one is no duplicate of it. */
    assert_int_equal(parse(ROUTER6_KEYS "route6 = 2001:db8:100::/48 via ff02::1\n"
                                        "route6 = 2001:db8:100::/48 via 2001:db8:18::2\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error_has(0, 7, "route6: gateway ff02::1");
    assert_int_equal(vals.nroutes6, 1);
    assert_int_equal(conf_get(&vals, "route6")->line, 7);
    assert_string_equal(conf_get(&vals, "route6")->text, "2001:db8:100::/48 via 2001:db8:18::2");
    /* The same destination in IPv4 and IPv6 form is two routes in two lists. */
    assert_int_equal(parse(ROUTER6_KEYS "port0.address = 198.18.0.1/24\n"
                                        "route = 0.0.0.0/0 via 198.18.0.2\n"
                                        "route6 = ::/0 via 2001:db8:18::2\n"),
                     0);
    /* CONF_MAX_ROUTES6 lines are fine, one more is not. */
    snprintf(text, sizeof(text), "%s", ROUTER6_KEYS);
    for (int i = 0; i < CONF_MAX_ROUTES6; i++) {
        snprintf(text + strlen(text), sizeof(text) - strlen(text),
                 "route6 = 2001:db8:%x::/48 via 2001:db8:18::2\n", 0x100 + i);
    }
    assert_int_equal(parse(text), 0);
    assert_int_equal(vals.nroutes6, CONF_MAX_ROUTES6);
    assert_route6(CONF_MAX_ROUTES6 - 1, "2001:db8:13f::", 48, "2001:db8:18::2", -1, 0,
                  6 + CONF_MAX_ROUTES6);
    strcat(text, "route6 = 2001:db9::/32 via 2001:db8:19::2\n");
    strcat(text, "route6 = 2001:db9::/32 via 2001:db8:19::3\n");
    assert_int_equal(parse(text), WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 7 + CONF_MAX_ROUTES6, "route6: too many routes, at most 64");
    assert_error(1, 8 + CONF_MAX_ROUTES6, "route6: too many routes, at most 64");
}

static void test_emitted_address6(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8:18::1/64\n"
                                         "port2.address6 = fd12:3456:789a:1::abcd/127\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "/* port0.address6 = 2001:db8:18::1/64 (line 5).");
    assert_header_has(h, "\n#define CONFIG_PORT0_HAS_ADDRESS6 1\n"
                         "#define CONFIG_PORT0_ADDRESS6 { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18, "
                         "0x00, 0x00, \\\n"
                         "                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, "
                         "0x00, 0x01 }\n"
                         "#define CONFIG_PORT0_PREFIX6 64\n\n");
    assert_header_has(h, "/* port1.address6 not set (no default).");
    assert_header_has(h, "\n#define CONFIG_PORT1_HAS_ADDRESS6 0\n"
                         "#define CONFIG_PORT1_ADDRESS6 { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, "
                         "0x00, 0x00, \\\n"
                         "                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, "
                         "0x00, 0x00 }\n"
                         "#define CONFIG_PORT1_PREFIX6 0\n\n");
    assert_header_has(h, "\n#define CONFIG_PORT2_HAS_ADDRESS6 1\n"
                         "#define CONFIG_PORT2_ADDRESS6 { 0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a, "
                         "0x00, 0x01, \\\n"
                         "                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, "
                         "0xab, 0xcd }\n"
                         "#define CONFIG_PORT2_PREFIX6 127\n\n");
    assert_header_has(h, "\n#define CONFIG_PORT3_HAS_ADDRESS6 0\n");
    /* The IPv4 macros of the same ports are unchanged beside them. */
    assert_header_has(h, "\n#define CONFIG_PORT0_HAS_ADDRESS 0\n");
    assert_header_has(h, "\n/* Every port's IPv6 address as { has_address6, { 16 bytes }, "
                         "prefix6 }, port0 first:");
    assert_header_has(h, "\n#define CONFIG_PORT_ADDRESSES6 \\\n"
                         "    { { 1, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18, 0x00, 0x00, \\\n"
                         "             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }, 64 }, "
                         "\\\n"
                         "      { 0, { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 0 }, \\\n"
                         "      { 1, { 0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a, 0x00, 0x01, \\\n"
                         "             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xab, 0xcd }, 127 }, "
                         "\\\n"
                         "      { 0, { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 0 } "
                         "}\n\n");
    /* In table order: after the IPv4 addresses; the aggregate right after CONFIG_PORT_ADDRESSES. */
    assert_true(strstr(h, "CONFIG_PORT0_HAS_ADDRESS6") > strstr(h, "CONFIG_PORT3_PREFIX "));
    assert_true(strstr(h, "CONFIG_PORT0_MTU") > strstr(h, "CONFIG_PORT3_PREFIX6"));
    assert_true(strstr(h, "CONFIG_PORT_ADDRESSES6") > strstr(h, "CONFIG_PORT_ADDRESSES \\"));
    assert_true(strstr(h, "CONFIG_MAX_MTU") > strstr(h, "CONFIG_PORT_ADDRESSES6"));
    assert_lines_fit(h);
    free(h);
}

static void test_emitted_routes6(void **state)
{
    char *h;

    (void)state;
    assert_int_equal(parse(ROUTER6_KEYS "route6 = 2001:db8:100::/48 via 2001:db8:19::2\n"
                                        "route6 = ::/0 via fe80::1 dev port0\n"
                                        "route6 = 2001:db8:200::/40 dev port1\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n/* route6: 3 lines. Router mode: a static IPv6 route, one per line.");
    assert_header_has(h, "\n#define CONFIG_NROUTES6 3\n"
                         "/* { { prefix }, len, has_gateway, { gateway }, iface } per route6, in "
                         "file order:\n"
                         " *   line 7: 2001:db8:100::/48 via 2001:db8:19::2 (port1)\n"
                         " *   line 8: ::/0 via fe80::1 dev port0\n"
                         " *   line 9: 2001:db8:200::/40 dev port1 */\n"
                         "#define CONFIG_ROUTES6 \\\n"
                         "    { { { 0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 48, 1, \\\n"
                         "        { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x19, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02 }, 1 }, \\\n"
                         "      { { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 0, 1, \\\n"
                         "        { 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }, 0 }, \\\n"
                         "      { { 0x20, 0x01, 0x0d, 0xb8, 0x02, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 40, 0, \\\n"
                         "        { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 1 } }\n\n");
    /* In table order: right after the IPv4 routes, before the router keys. */
    assert_true(strstr(h, "CONFIG_NROUTES6") > strstr(h, "CONFIG_ROUTES \\"));
    assert_true(strstr(h, "CONFIG_ROUTER_ICMP_PER_SEC") > strstr(h, "CONFIG_ROUTES6"));
    assert_lines_fit(h);
    free(h);
    /* One route: no trailing comma. Two long addresses: the comment line is split to fit. */
    assert_int_equal(parse(REQUIRED_KEYS "port3.address6 = 2001:db8:ffff:ffff:ffff:ffff:ffff:1/64\n"
                                         "route6 = 2001:db8:eeee:eeee:eeee:eeee:eeee:eeee/128 via "
                                         "2001:db8:ffff:ffff:ffff:ffff:ffff:fffe\n"),
                     0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n/* route6: 1 line. Router mode:");
    assert_header_has(h, " *   line 6: 2001:db8:eeee:eeee:eeee:eeee:eeee:eeee/128\n"
                         " *     via 2001:db8:ffff:ffff:ffff:ffff:ffff:fffe (port3) */\n");
    assert_header_has(h, "\n#define CONFIG_NROUTES6 1\n");
    assert_header_has(h, "          0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe }, 3 } }\n\n");
    assert_lines_fit(h);
    free(h);
    /* None: a count of 0 and one all-zero placeholder entry of the same shape. */
    assert_int_equal(parse(REQUIRED_KEYS), 0);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "\n/* route6: no lines. Router mode:");
    assert_header_has(h, "\n#define CONFIG_NROUTES6 0\n"
                         "/* No IPv6 routes: one all-zero placeholder entry, as an initializer "
                         "may not be empty; loop\n"
                         " * to CONFIG_NROUTES6, never to the array's size. */\n"
                         "#define CONFIG_ROUTES6 \\\n"
                         "    { { { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 0, 0, \\\n"
                         "        { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \\\n"
                         "          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 0 } }\n\n");
    assert_lines_fit(h);
    free(h);
}

/* --- IPv6: portN.advertise6 ---------------------------------------------------------------- */

static void test_advertise6_valid(void **state)
{
    char *h;

    (void)state;
    /* Off by default on every port, with or without an address6. */
    assert_int_equal(parse(ROUTER6_KEYS), 0);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];

        snprintf(key, sizeof(key), "port%u.advertise6", n);
        assert_int_equal(num_of(key), 0);
        assert_int_equal(conf_get(&vals, key)->line, 0);
    }
    /* yes on a port with an address6, before or after it in the file; no anywhere. */
    assert_int_equal(parse(ROUTER6_KEYS "port0.advertise6 = yes\n"      /* 7 */
                                        "port2.advertise6 = no\n"       /* 8 */
                                        "port3.advertise6=no # none\n"), /* 9 */
                     0);
    assert_int_equal(num_of("port0.advertise6"), 1);
    assert_int_equal(num_of("port1.advertise6"), 0);
    assert_int_equal(num_of("port2.advertise6"), 0);
    assert_int_equal(conf_get(&vals, "port0.advertise6")->line, 7);
    h = emit_to_string(emit_header_of_vals);
    assert_header_has(h, "/* port0.advertise6 = yes (line 7). Router mode, port 0 with an "
                         "address6:");
    assert_header_has(h, "\n#define CONFIG_PORT0_ADVERTISE6 1\n");
    assert_header_has(h, "/* port1.advertise6 = no (default).");
    assert_header_has(h, "\n#define CONFIG_PORT1_ADVERTISE6 0\n");
    assert_header_has(h, "\n#define CONFIG_PORT3_ADVERTISE6 0\n");
    assert_true(strstr(h, "CONFIG_PORT0_ADVERTISE6") > strstr(h, "CONFIG_PORT3_MTU"));
    assert_lines_fit(h);
    free(h);
    assert_int_equal(parse("port1.advertise6 = yes\n" REQUIRED_KEYS
                           "port1.address6 = 2001:db8:19::1/64\n"),
                     0);
    assert_int_equal(num_of("port1.advertise6"), 1);
    /* Any prefix length: only a /64 lets hosts form addresses, the others are on-link only. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = 2001:db8::1/48\n"
                                         "port1.address6 = 2001:db8:1::1/128\n"
                                         "port0.advertise6 = yes\nport1.advertise6 = yes\n"),
                     0);
}

static void test_advertise6_errors(void **state)
{
    (void)state;
    assert_one_bad_line("port0.advertise6 = true", "port0.advertise6: 'true': expected yes or no");
    assert_one_bad_line("port3.advertise6 = Yes", "port3.advertise6: 'Yes': expected yes or no");
    assert_one_bad_line("port1.advertise6 =", "port1.advertise6: empty value");
    /* No address6 to advertise: found at the file's end, on the advertise6 line. */
    assert_one_bad_line("port2.advertise6 = yes", "port2.advertise6: port2 has no address6 to "
                                                  "advertise: set port2.address6 or "
                                                  "port2.advertise6 = no");
    /* An IPv4 address is not enough; another port's address6 is not this one's. */
    assert_int_equal(parse(ROUTER_KEYS "port1.address6 = 2001:db8:19::1/64\n" /* 7 */
                                       "port0.advertise6 = yes\n"             /* 8 */
                                       "bogus = 1\n"                          /* 9 */
                                       "port1.advertise6 = yes\n"),           /* 10 */
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 2);
    assert_error(0, 8, "port0.advertise6: port0 has no address6 to advertise: set "
                       "port0.address6 or port0.advertise6 = no");
    assert_error(1, 9, "unknown key 'bogus'");
    /* Wire mode advertises nothing, whether mode comes before or after. */
    assert_int_equal(parse(ROUTER6_KEYS "port0.advertise6 = yes\nmode = wire\n"), WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 7, "port0.advertise6: wire mode (mode, line 8) sends no router "
                       "advertisements: set mode = router or port0.advertise6 = no");
    assert_int_equal(parse("mode = wire\n" ROUTER6_KEYS "port1.advertise6 = yes\n"
                           "port0.advertise6 = no\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 8, "port1.advertise6: wire mode (mode, line 1) sends no router "
                       "advertisements: set mode = router or port1.advertise6 = no");
    /* An address6 with its own error may be the one meant: no second error. */
    assert_int_equal(parse(REQUIRED_KEYS "port0.address6 = fe80::1/64\n"
                                         "port0.advertise6 = yes\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error_has(0, 5, "port0.address6: fe80::1 is a link-local address");
    assert_int_equal(parse(ROUTER6_KEYS "port0.advertise6 = yes\nport0.advertise6 = no\n"),
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 1);
    assert_error(0, 8, "duplicate key 'port0.advertise6' (first set on line 7)");
}

/* The doc rows of the IPv6 keys. */
static void test_doc_ipv6_rows(void **state)
{
    char *table;

    (void)state;
    table = emit_to_string(conf_emit_doc);
    assert_non_null(strstr(table, "| `port1.address6` | no | unset | `x:x::x/len` (RFC 4291 2.2), "
                                  "len 16..128; global or unique-local unicast:"));
    assert_non_null(strstr(table, "| `CONFIG_PORT1_HAS_ADDRESS6`, `CONFIG_PORT1_ADDRESS6`, "
                                  "`CONFIG_PORT1_PREFIX6` |"));
    assert_non_null(strstr(table, "| `route6` | no | none | `P/len via G`, `P/len via fe80::X dev "
                                  "portN` or `P/len dev portN`, len 0..128, no host bits set; at "
                                  "most 64 lines (see IPv6) | `CONFIG_NROUTES6`, "
                                  "`CONFIG_ROUTES6` |"));
    assert_non_null(strstr(table, "| `port2.advertise6` | no | `no` | `yes` (1), `no` (0) | "
                                  "`CONFIG_PORT2_ADVERTISE6` | Router mode, port 2 with an "
                                  "address6: yes sends IPv6 router advertisements"));
    free(table);
}

/* Errors are listed by line even when found at the end; a full list keeps the earliest. */
static void test_error_order(void **state)
{
    char text[4096] = "";

    (void)state;
    assert_int_equal(parse("route = 10.0.0.0/8 via 10.9.9.9\n" /* 1, found at the end */
                           "cores = 0\n"                       /* 2 */
                           "route = 10.1.0.0/16 via 10.9.9.8\n" /* 3, found at the end */
                           "bogus = 1\n"),                     /* 4 */
                     WS_ERR_INVAL);
    assert_int_equal(errs.count, 7);
    assert_error(0, 1, "route: gateway 10.9.9.9 is not on any interface's subnet");
    assert_error(1, 2, "cores: '0' out of range 1..64 (or 'all')");
    assert_error(2, 3, "route: gateway 10.9.9.8 is not on any interface's subnet");
    assert_error(3, 4, "unknown key 'bogus'");
    assert_error(4, 0, "missing required key 'console.port'");
    assert_error(5, 0, "missing required key 'console.baud'");
    assert_error(6, 0, "missing required key 'panic'");
    /* 40 unknown keys, then a route whose error is found last but sorts first. */
    strcat(text, "route = 10.0.0.0/8 via 10.9.9.9\n");
    for (int i = 0; i < 40; i++) {
        strcat(text, "bogus = 1\n");
    }
    assert_int_equal(parse(text), WS_ERR_INVAL);
    assert_int_equal(errs.count, CONF_MAX_ERRORS);
    assert_int_equal(errs.dropped, 41 + 4 - CONF_MAX_ERRORS);
    assert_error(0, 1, "route: gateway 10.9.9.9 is not on any interface's subnet");
    assert_error(CONF_MAX_ERRORS - 1, CONF_MAX_ERRORS, "unknown key 'bogus'");
}

/* The doc rows of the forwarding keys. */
static void test_doc_forwarding_rows(void **state)
{
    char *table;

    (void)state;
    table = emit_to_string(conf_emit_doc);
    assert_non_null(strstr(table, "| `mode` | no | `router` | `router`, `wire` | "
                                  "`CONFIG_MODE_ROUTER`, `CONFIG_MODE_WIRE` |"));
    assert_non_null(strstr(table, "| `route` | no | none | `a.b.c.d/len via e.f.g.h` or "
                                  "`a.b.c.d/len dev portN[.VID]`, len 0..32, no host bits set; at most "
                                  "64 lines (see Routes) | `CONFIG_NROUTES`, `CONFIG_ROUTES` |"));
    assert_non_null(strstr(table, "| `router.icmp_errors_per_sec` | no | `100` | 0..100000 | "
                                  "`CONFIG_ROUTER_ICMP_PER_SEC` |"));
    assert_non_null(strstr(table, "| `router.icmp_burst` | no | `10` | 1..1000 | "
                                  "`CONFIG_ROUTER_ICMP_BURST` |"));
    assert_non_null(strstr(table, "| `wire.pairs` | no | `0-1` | pairs `N-M` separated by "
                                  "spaces, ports 0..3; a port in at most one pair, never with "
                                  "itself | `CONFIG_WIRE_PEER` |"));
    assert_non_null(strstr(table, "| `wire.rewrite_mac` | no | `no` | `yes` (1), `no` (0) | "
                                  "`CONFIG_WIRE_REWRITE_MAC` |"));
    assert_non_null(strstr(table, "| `port2.next_hop_mac` | no | unset | `aa:bb:cc:dd:ee:ff`: "
                                  "six two-digit hex octets, any case; not all-zero, multicast "
                                  "or broadcast | `CONFIG_PORT2_NEXT_HOP_HAS_MAC`, "
                                  "`CONFIG_PORT2_NEXT_HOP_MAC` |"));
    free(table);
}

/* docs/config.md holds the output of `genconfig --doc` between its markers. */
static void test_doc_matches_table(void **state)
{
    static const char begin[] = "<!-- BEGIN genconfig --doc -->\n";
    static const char end[] = "<!-- END genconfig --doc -->\n";
    char *doc;
    char *table;
    char *from;
    char *to;
    size_t len;

    (void)state;
    doc = read_repo_file("docs/config.md", &len);
    from = strstr(doc, begin);
    assert_non_null(from);
    from += strlen(begin);
    to = strstr(from, end);
    assert_non_null(to);
    *to = '\0';
    table = emit_to_string(conf_emit_doc);
    if (strcmp(from, table) != 0) {
        fail_msg("docs/config.md is out of date: paste the output of `genconfig --doc` "
                 "between its markers");
    }
    free(table);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_file_values),
        cmocka_unit_test(test_aliases_and_defaults),
        cmocka_unit_test(test_number_edges),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_bad_enums_bools_strings),
        cmocka_unit_test(test_default_name_from_bad_file_name),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_missing_required_keys),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_line_length),
        cmocka_unit_test(test_comments_blanks_whitespace),
        cmocka_unit_test(test_nul_and_non_ascii),
        cmocka_unit_test(test_no_trailing_newline),
        cmocka_unit_test(test_all_errors_with_line_numbers),
        cmocka_unit_test(test_error_list_overflow),
        cmocka_unit_test(test_key_table_is_sound),
        cmocka_unit_test(test_emitted_header),
        cmocka_unit_test(test_port_address_valid),
        cmocka_unit_test(test_port_address_syntax),
        cmocka_unit_test(test_port_address_unusable),
        cmocka_unit_test(test_port_subnets_overlap),
        cmocka_unit_test(test_nic_and_poll_keys),
        cmocka_unit_test(test_sink_tcp_window),
        cmocka_unit_test(test_nic_and_poll_bad_values),
        cmocka_unit_test(test_emitted_new_macros),
        cmocka_unit_test(test_doc_new_rows),
        cmocka_unit_test(test_mode),
        cmocka_unit_test(test_wire_pairs_valid),
        cmocka_unit_test(test_wire_pairs_errors),
        cmocka_unit_test(test_next_hop_mac_valid),
        cmocka_unit_test(test_next_hop_mac_errors),
        cmocka_unit_test(test_port_pci_valid),
        cmocka_unit_test(test_port_pci_errors),
        cmocka_unit_test(test_wire_rewrite_needs_macs),
        cmocka_unit_test(test_router_icmp_keys),
        cmocka_unit_test(test_routes_valid),
        cmocka_unit_test(test_route_syntax_errors),
        cmocka_unit_test(test_route_checks_against_ports),
        cmocka_unit_test(test_route_duplicates_and_limit),
        cmocka_unit_test(test_other_keys_stay_single),
        cmocka_unit_test(test_emitted_routes),
        cmocka_unit_test(test_static_neighbours),
        cmocka_unit_test(test_vlans),
        cmocka_unit_test(test_address6_valid),
        cmocka_unit_test(test_address6_syntax),
        cmocka_unit_test(test_address6_unusable),
        cmocka_unit_test(test_address6_prefixes_overlap),
        cmocka_unit_test(test_routes6_valid),
        cmocka_unit_test(test_route6_syntax_errors),
        cmocka_unit_test(test_route6_checks_against_ports),
        cmocka_unit_test(test_route6_duplicates_and_limit),
        cmocka_unit_test(test_emitted_address6),
        cmocka_unit_test(test_emitted_routes6),
        cmocka_unit_test(test_advertise6_valid),
        cmocka_unit_test(test_advertise6_errors),
        cmocka_unit_test(test_doc_ipv6_rows),
        cmocka_unit_test(test_error_order),
        cmocka_unit_test(test_doc_forwarding_rows),
        cmocka_unit_test(test_shipped_configs),
        cmocka_unit_test(test_doc_matches_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

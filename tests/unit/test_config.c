/* tests/unit/test_config.c: cmocka tests of the configuration parser, validator and emitters
 * (config/confparse.c), plus checks that default.conf, test.conf and docs/config.md agree with
 * the key table. Reads those files relative to the repository root (see repo_path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "confparse.h"
#include "err.h"

/* The required keys with valid values; tests add or break lines around them. */
#define REQUIRED_KEYS                                                                              \
    "console.port = com1\n"                                                                        \
    "console.baud = 115200\n"                                                                      \
    "cores = all\n"                                                                                \
    "panic = halt\n"

/* Parsed results: static because each is ~10 KiB; conf_parse resets both on every call. */
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
        /* Only an address has a "not set" macro for the firmware to test. */
        assert_true(!k->no_default || (k->type == CONF_IPV4_PREFIX && !k->required));
        assert_true(k->type != CONF_IPV4_PREFIX || (k->min >= 0 && k->max <= 30));
        assert_true(!k->pow2 || (k->type == CONF_INT && k->min > 0));
        assert_true(k->type != CONF_ENUM || k->choices[0].word != NULL);
        assert_true(k->type != CONF_STRING ||
                    (k->extra_chars != NULL && k->max_len <= CONF_LINE_MAX_BYTES));
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(conf_keys[j].name, k->name);
            assert_string_not_equal(conf_keys[j].macro, k->macro);
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
    }
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
    assert_int_equal(num_of("nic.rx_usecs"), 50);
    assert_int_equal(num_of("nic.pool_buffers"), 4096);
    assert_int_equal(num_of("poll.mode"), 1); /* adaptive */
    assert_int_equal(num_of("poll.idle_us"), 100);
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
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_RX_USECS 50\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_NIC_POOL_BUFFERS 4096\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_POLL_ADAPTIVE 1\n"));
    assert_non_null(strstr(h, "\n#define CONFIG_POLL_IDLE_US 100\n"));
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

/* Both shipped configs are valid, set every key, and differ only where they should. */
static void test_shipped_configs(void **state)
{
    static struct conf_values def;
    size_t len;
    char *text;

    (void)state;
    text = read_repo_file("config/default.conf", &len);
    assert_int_equal(conf_parse("config/default.conf", text, len, &def, &errs), 0);
    free(text);
    text = read_repo_file("config/test.conf", &len);
    assert_int_equal(conf_parse("config/test.conf", text, len, &vals, &errs), 0);
    free(text);
    for (size_t i = 0; i < conf_key_count; i++) {
        const char *key = conf_keys[i].name;

        /* documented by being set explicitly; a key without default may be left out */
        if (!conf_keys[i].no_default) {
            assert_int_not_equal(def.val[i].line, 0);
            assert_int_not_equal(vals.val[i].line, 0);
        }
        if (strcmp(key, "name") != 0 && strcmp(key, "test.fault_command") != 0) {
            assert_int_equal(def.val[i].present, vals.val[i].present);
            assert_int_equal(def.val[i].num, vals.val[i].num);
            assert_int_equal(def.val[i].ip, vals.val[i].ip);
            assert_int_equal(def.val[i].prefix, vals.val[i].prefix);
        }
    }
    assert_int_equal(conf_get(&def, "port0.address")->ip, 0xc6120001); /* 198.18.0.1/24 */
    assert_int_equal(conf_get(&def, "port1.address")->ip, 0xc6130001); /* 198.19.0.1/24 */
    assert_string_equal(conf_get(&def, "name")->text, "default");
    assert_int_equal(conf_get(&def, "test.fault_command")->num, 0);
    assert_string_equal(conf_get(&vals, "name")->text, "test");
    assert_int_equal(conf_get(&vals, "test.fault_command")->num, 1);
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
        cmocka_unit_test(test_nic_and_poll_bad_values),
        cmocka_unit_test(test_emitted_new_macros),
        cmocka_unit_test(test_doc_new_rows),
        cmocka_unit_test(test_shipped_configs),
        cmocka_unit_test(test_doc_matches_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

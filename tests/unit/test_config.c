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
        assert_true(k->required || k->def != NULL || k->def_from_file);
        assert_true(k->type != CONF_ENUM || k->choices[0].word != NULL);
        assert_true(k->type != CONF_STRING ||
                    (k->extra_chars != NULL && k->max_len <= CONF_LINE_MAX_BYTES));
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(conf_keys[j].name, k->name);
            assert_string_not_equal(conf_keys[j].macro, k->macro);
        }
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

        assert_int_not_equal(def.val[i].line, 0); /* documented by being set explicitly */
        assert_int_not_equal(vals.val[i].line, 0);
        if (strcmp(key, "name") != 0 && strcmp(key, "test.fault_command") != 0) {
            assert_int_equal(def.val[i].num, vals.val[i].num);
        }
    }
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
        cmocka_unit_test(test_shipped_configs),
        cmocka_unit_test(test_doc_matches_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

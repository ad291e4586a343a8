/* tests/unit/test_console_line.c: the console line editor and tokenizer, byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "console_line.h"

/* feed: push a string through the editor; return the action of its last byte. */
static enum cline_action feed(struct console_line *l, const char *s, size_t n)
{
    enum cline_action a = CLINE_NOTHING;
    for (size_t i = 0; i < n; i++) {
        a = console_line_feed(l, (uint8_t)s[i]);
    }
    return a;
}

#define FEED(l, lit) feed((l), (lit), sizeof(lit) - 1)

static void test_simple_line_cr(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    assert_int_equal(console_line_feed(&l, 'h'), CLINE_ECHO);
    assert_int_equal(FEED(&l, "elp\r"), CLINE_DONE);
    assert_string_equal(l.buf, "help");
}

static void test_crlf_gives_one_line(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "cpus\r"), CLINE_DONE);
    console_line_reset(&l);
    /* the LF of CR LF must not produce a second, empty line */
    assert_int_equal(console_line_feed(&l, '\n'), CLINE_NOTHING);
    assert_int_equal(FEED(&l, "x\n"), CLINE_DONE);
    assert_string_equal(l.buf, "x");
}

static void test_backspace_and_delete(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "helo"), CLINE_ECHO);
    assert_int_equal(console_line_feed(&l, 0x7f), CLINE_ERASE);
    assert_int_equal(FEED(&l, "p\b"), CLINE_ERASE);
    assert_int_equal(FEED(&l, "p\n"), CLINE_DONE);
    assert_string_equal(l.buf, "help");
    console_line_reset(&l);
    assert_int_equal(console_line_feed(&l, '\b'), CLINE_NOTHING); /* nothing to erase */
}

static void test_too_long_line_rejected_then_recovers(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    for (int i = 0; i < 5 * WS_CONSOLE_LINE_BYTES; i++) {
        console_line_feed(&l, 'a');
        assert_true(l.len < sizeof(l.buf));
    }
    assert_int_equal(console_line_feed(&l, '\r'), CLINE_TOO_LONG);
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "version\r"), CLINE_DONE);
    assert_string_equal(l.buf, "version");
}

static void test_longest_accepted_line(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    for (int i = 0; i < WS_CONSOLE_LINE_BYTES - 1; i++) {
        assert_int_equal(console_line_feed(&l, 'b'), CLINE_ECHO);
    }
    assert_int_equal(console_line_feed(&l, 'b'), CLINE_NOTHING);
    assert_int_equal(console_line_feed(&l, '\r'), CLINE_TOO_LONG);
}

static void test_control_and_high_bytes_flagged(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "he\x01lp\xff\r"), CLINE_BAD_BYTE);
    assert_int_equal(l.bad_byte, 0x01);
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "\x80\r"), CLINE_BAD_BYTE);
    assert_int_equal(l.bad_byte, 0x80);
}

static void test_escape_sequences_skipped(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    /* up arrow, then "ab", then right arrow with a parameter, then Enter */
    assert_int_equal(FEED(&l, "\x1b[A" "ab" "\x1b[1;5C" "\r"), CLINE_DONE);
    assert_string_equal(l.buf, "ab");
    /* a lone ESC followed by Enter must still end the line */
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "x\x1b\r"), CLINE_DONE);
    assert_string_equal(l.buf, "x");
}

static void test_ctrl_c_kills_line(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    FEED(&l, "garbage");
    assert_int_equal(console_line_feed(&l, 0x03), CLINE_KILL);
    assert_int_equal(l.len, 0);
    assert_int_equal(FEED(&l, "ok\r"), CLINE_DONE);
    assert_string_equal(l.buf, "ok");
}

static void test_every_byte_value_is_safe(void **state)
{
    (void)state;
    struct console_line l = { 0 };
    console_line_reset(&l);
    for (int round = 0; round < 4; round++) {
        for (int c = 0; c < 256; c++) {
            console_line_feed(&l, (uint8_t)c);
            assert_true(l.len < sizeof(l.buf));
        }
    }
    console_line_reset(&l);
    assert_int_equal(FEED(&l, "help\r"), CLINE_DONE);
}

static void test_split_words(void **state)
{
    (void)state;
    char line[] = "  stats \t port  1 ";
    char *argv[CONSOLE_MAX_ARGS];
    assert_int_equal(console_split(line, argv, CONSOLE_MAX_ARGS), 3);
    assert_string_equal(argv[0], "stats");
    assert_string_equal(argv[1], "port");
    assert_string_equal(argv[2], "1");

    char empty[] = "   ";
    assert_int_equal(console_split(empty, argv, CONSOLE_MAX_ARGS), 0);

    char many[] = "a b c d e f g h i";
    assert_int_equal(console_split(many, argv, CONSOLE_MAX_ARGS), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_line_cr),
        cmocka_unit_test(test_crlf_gives_one_line),
        cmocka_unit_test(test_backspace_and_delete),
        cmocka_unit_test(test_too_long_line_rejected_then_recovers),
        cmocka_unit_test(test_longest_accepted_line),
        cmocka_unit_test(test_control_and_high_bytes_flagged),
        cmocka_unit_test(test_escape_sequences_skipped),
        cmocka_unit_test(test_ctrl_c_kills_line),
        cmocka_unit_test(test_every_byte_value_is_safe),
        cmocka_unit_test(test_split_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/fuzz/fuzz_console.c: libFuzzer harness for the serial console's line editor and
 * tokenizer, kernel/console_line.c. The input is what arrives on the serial line; byte 0 also
 * picks the max_args of a second console_split call (0 .. CONSOLE_MAX_ARGS).
 *
 * Each byte goes through console_line_feed; on DONE, TOO_LONG or BAD_BYTE the line is split
 * (console_split with CONSOLE_MAX_ARGS, then on a copy with the chosen max_args) and reset, as
 * kernel/console.c does.
 *
 * Invariants: len < sizeof(buf) after every byte; at a line end buf is NUL-terminated at len;
 * the terminal the caller drives from the actions (ECHO appends the byte, ERASE removes one,
 * KILL empties) shows exactly the accepted line on DONE, which holds only printable ASCII;
 * TOO_LONG only for a full buffer; BAD_BYTE names a byte that is no printable ASCII; ECHO only
 * for printable bytes; split returns -1 .. max_args, and its words are non-empty, blank-free,
 * inside buf and the same as a reference tokenizer's.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/console_line.h"
#include "tests/fuzz/fuzz.h"

#define FC_BUF_BYTES sizeof(((struct console_line *)0)->buf)

/* The reference: words between spaces/tabs of s (len bytes), into words[] as offsets; returns
 * the count, or -1 past max. */
static int fc_ref_split(const char *s, size_t len, size_t *start, size_t *wlen, int max)
{
    int n = 0;
    size_t i = 0;
    for (;;) {
        while (i < len && (s[i] == ' ' || s[i] == '\t')) {
            i++;
        }
        if (i == len) {
            return n;
        }
        if (n == max) {
            return -1;
        }
        start[n] = i;
        while (i < len && s[i] != ' ' && s[i] != '\t') {
            i++;
        }
        wlen[n] = i - start[n];
        n++;
    }
}

/* console_split on buf (a line of len bytes, NUL at len) with max_args, against the reference. */
static void fc_check_split(char *buf, size_t len, int max_args)
{
    char orig[FC_BUF_BYTES];
    memcpy(orig, buf, len + 1);
    size_t start[CONSOLE_MAX_ARGS], wlen[CONSOLE_MAX_ARGS];
    int want = fc_ref_split(orig, len, start, wlen, max_args);

    char *argv[CONSOLE_MAX_ARGS + 1];
    argv[max_args] = (char *)0x1; /* one past max_args: must stay untouched */
    int argc = console_split(buf, argv, max_args);

    FUZZ_CHECK(argc >= -1 && argc <= max_args);
    FUZZ_CHECK(argv[max_args] == (char *)0x1);
    FUZZ_CHECK(argc == want);
    for (int i = 0; i < argc; i++) {
        FUZZ_CHECK(argv[i] >= buf && argv[i] < buf + len);
        size_t n = strlen(argv[i]);
        FUZZ_CHECK(n > 0 && argv[i] + n <= buf + len);
        FUZZ_CHECK(strcspn(argv[i], " \t") == n);
        FUZZ_CHECK((size_t)(argv[i] - buf) == start[i] && n == wlen[i]);
        FUZZ_CHECK(memcmp(argv[i], orig + start[i], n) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct console_line *l = malloc(sizeof(*l)); /* on the heap: ASan guards both ends */
    if (l == NULL) {
        abort();
    }
    memset(l, 0, sizeof(*l));
    console_line_reset(l);
    int max_args = size != 0 ? data[0] % (CONSOLE_MAX_ARGS + 1) : CONSOLE_MAX_ARGS;

    char shown[FC_BUF_BYTES * 2]; /* what the terminal shows of the current line */
    size_t nshown = 0;
    bool overflowed = false;      /* the current line lost a byte to a full buffer */

    for (size_t k = 0; k < size; k++) {
        uint8_t c = data[k];
        size_t len0 = l->len;
        enum cline_action a = console_line_feed(l, c);

        FUZZ_CHECK(l->len < FC_BUF_BYTES);
        switch (a) {
        case CLINE_NOTHING:
            FUZZ_CHECK(l->len == len0);
            break;
        case CLINE_ECHO:
            FUZZ_CHECK(c >= 0x20 && c <= 0x7e);
            FUZZ_CHECK(l->len == len0 + 1 && l->buf[len0] == (char)c);
            FUZZ_CHECK(nshown < sizeof(shown));
            shown[nshown++] = (char)c;
            break;
        case CLINE_ERASE:
            FUZZ_CHECK(len0 > 0 && l->len == len0 - 1);
            FUZZ_CHECK(nshown > 0);
            nshown--;
            break;
        case CLINE_KILL:
            FUZZ_CHECK(l->len == 0);
            nshown = 0;
            overflowed = false;
            break;
        case CLINE_DONE:
        case CLINE_TOO_LONG:
        case CLINE_BAD_BYTE:
            FUZZ_CHECK(c == '\r' || c == '\n');
            FUZZ_CHECK(l->buf[l->len] == '\0' && strlen(l->buf) == l->len);
            if (a == CLINE_DONE) {
                FUZZ_CHECK(!overflowed);
                FUZZ_CHECK(nshown == l->len && memcmp(shown, l->buf, nshown) == 0);
                for (size_t i = 0; i < l->len; i++) {
                    FUZZ_CHECK(l->buf[i] >= 0x20 && l->buf[i] <= 0x7e);
                }
            } else if (a == CLINE_TOO_LONG) {
                FUZZ_CHECK(overflowed && l->len == FC_BUF_BYTES - 1);
            } else {
                FUZZ_CHECK(!overflowed);
                FUZZ_CHECK(l->bad_byte >= 0 && l->bad_byte <= 0xff);
                FUZZ_CHECK(l->bad_byte < 0x20 || l->bad_byte > 0x7e);
            }
            {
                char copy[FC_BUF_BYTES];
                memcpy(copy, l->buf, l->len + 1);
                fc_check_split(l->buf, l->len, CONSOLE_MAX_ARGS);
                fc_check_split(copy, l->len, max_args);
            }
            console_line_reset(l);
            FUZZ_CHECK(l->len == 0 && !l->too_long && l->bad_byte == -1);
            nshown = 0;
            overflowed = false;
            break;
        default:
            FUZZ_CHECK(!"unknown action");
        }
        /* Printable bytes that were neither echoed nor part of an escape sequence were lost to
         * a full buffer: the line must then end as TOO_LONG. */
        if (a == CLINE_NOTHING && c >= 0x20 && c <= 0x7e && l->state == CLINE_TEXT &&
            l->too_long) {
            overflowed = true;
        }
        FUZZ_CHECK(l->too_long == overflowed);
    }
    free(l);
    return 0;
}

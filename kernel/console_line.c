/* kernel/console_line.c: byte-at-a-time line editing for the serial console (see header). */
#include "console_line.h"

#include <string.h>

#define ASCII_BS 0x08
#define ASCII_DEL 0x7F
#define ASCII_ESC 0x1B
#define ASCII_CTRL_C 0x03
#define ASCII_CTRL_U 0x15

void console_line_reset(struct console_line *l)
{
    bool after_cr = l->last_was_cr; /* a CR LF split across two lines is still one line end */
    memset(l, 0, sizeof(*l));
    l->bad_byte = -1;
    l->last_was_cr = after_cr;
}

/* An ANSI escape sequence (arrow keys, ...) is skipped whole: ESC [ params final(0x40-0x7E). */
static enum cline_action console_line_escape(struct console_line *l, uint8_t c)
{
    if (l->state == CLINE_ESC) {
        l->state = (c == '[') ? CLINE_CSI : CLINE_TEXT;
    } else if (c >= 0x40 && c <= 0x7E) {
        l->state = CLINE_TEXT;
    }
    return CLINE_NOTHING;
}

static enum cline_action console_line_end(struct console_line *l)
{
    l->buf[l->len] = '\0';
    if (l->too_long) {
        return CLINE_TOO_LONG;
    }
    if (l->bad_byte >= 0) {
        return CLINE_BAD_BYTE;
    }
    return CLINE_DONE;
}

static enum cline_action console_line_erase(struct console_line *l)
{
    if (l->len == 0 || l->too_long) {
        return CLINE_NOTHING;
    }
    l->len--;
    return CLINE_ERASE;
}

enum cline_action console_line_feed(struct console_line *l, uint8_t c)
{
    bool after_cr = l->last_was_cr;

    l->last_was_cr = (c == '\r');
    if (l->state != CLINE_TEXT) {
        if (c != '\r' && c != '\n') {
            return console_line_escape(l, c);
        }
        l->state = CLINE_TEXT; /* an unfinished escape sequence never swallows Enter */
    }
    switch (c) {
    case '\n':
        return after_cr ? CLINE_NOTHING : console_line_end(l);
    case '\r':
        return console_line_end(l);
    case ASCII_BS:
    case ASCII_DEL:
        return console_line_erase(l);
    case ASCII_CTRL_C:
    case ASCII_CTRL_U:
        console_line_reset(l);
        return CLINE_KILL;
    case ASCII_ESC:
        l->state = CLINE_ESC;
        return CLINE_NOTHING;
    default:
        break;
    }
    if (c < 0x20 || c > 0x7E) {
        if (l->bad_byte < 0) {
            l->bad_byte = c;
        }
        return CLINE_NOTHING;
    }
    if (l->len + 1 >= sizeof(l->buf)) {
        l->too_long = true;
        return CLINE_NOTHING;
    }
    l->buf[l->len++] = (char)c;
    return CLINE_ECHO;
}

int console_split(char *line, char *argv[], int max_args)
{
    int argc = 0;
    char *p = line;

    for (;;) {
        while (*p == ' ' || *p == '\t') {
            *p++ = '\0';
        }
        if (*p == '\0') {
            return argc;
        }
        if (argc == max_args) {
            return -1;
        }
        argv[argc++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t') {
            p++;
        }
    }
}

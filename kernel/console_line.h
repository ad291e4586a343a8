/*
 * kernel/console_line.h: the console's line editor and tokenizer. Pure logic (no I/O), so the
 * host unit tests drive it byte by byte. Whatever bytes arrive, it never overruns its buffer and
 * always comes back to a clean state at the next end of line.
 */
#ifndef WS_CONSOLE_LINE_H
#define WS_CONSOLE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "param.h"

#define CONSOLE_MAX_ARGS 8

enum cline_state { CLINE_TEXT, CLINE_ESC, CLINE_CSI };

struct console_line {
    char buf[WS_CONSOLE_LINE_BYTES]; /* NUL-terminated when a line is ready */
    size_t len;
    bool too_long;     /* more bytes arrived than fit: the line is rejected at its end */
    int bad_byte;      /* first control/non-ASCII byte of this line, or -1 */
    bool last_was_cr;  /* swallow the LF of a CR LF pair */
    enum cline_state state;
};

/* What the caller should do after feeding one byte. */
enum cline_action {
    CLINE_NOTHING,  /* byte consumed silently */
    CLINE_ECHO,     /* echo the byte */
    CLINE_ERASE,    /* erase one character on the terminal ("\b \b") */
    CLINE_KILL,     /* line discarded (Ctrl-U / Ctrl-C): print a new prompt */
    CLINE_DONE,     /* a line is ready in buf */
    CLINE_TOO_LONG, /* line ended but was longer than WS_CONSOLE_LINE_BYTES - 1 */
    CLINE_BAD_BYTE, /* line ended but held a control or non-ASCII byte (see bad_byte) */
};

/* console_line_reset: empty the line (start every console_line from a zeroed struct). */
void console_line_reset(struct console_line *l);
/* console_line_feed: take one received byte; after DONE/TOO_LONG/BAD_BYTE the caller handles the
 * line and then calls console_line_reset(). */
enum cline_action console_line_feed(struct console_line *l, uint8_t c);

/* console_split: split line (modified in place) at spaces/tabs into at most max_args words.
 * Returns the word count, or -1 if there were more words than max_args. */
int console_split(char *line, char *argv[], int max_args);

#endif

/*
 * kernel/commands.h: the console's command table. The kernel owns the table and the parser; each
 * command registers itself with WS_COMMAND beside what it shows (LK's STATIC_COMMAND, iPXE's
 * COMMAND()), so adding one touches no kernel file.
 */
#ifndef WS_COMMANDS_H
#define WS_COMMANDS_H

#include "table.h"

struct command {
    const char *name;
    int max_args;     /* words after the command name */
    const char *help; /* one line for `help` */
    void (*run)(int argc, char **argv); /* console core; answers in whole lines */
};

/* WS_COMMAND(id, "name", max_args, "help", fn): register console command `name`. */
#define WS_COMMAND(id, cmd_name, max, help_text, fn)                                           \
    static const struct command command_##id WS_TABLE_ENTRY(ws_commands) = {                  \
        .name = (cmd_name), .max_args = (max), .help = (help_text), .run = (fn)                \
    }

/* commands_run_line: split a finished console line into words and run the command it names;
 * unknown commands and bad arguments get a one-line "error: ..." answer. Console core. */
void commands_run_line(char *line);

/* command_number: word s as a number below limit, or -1 after printing "error: no <what> ...".
 * For commands' arguments. Console core. */
long command_number(const char *what, const char *s, unsigned long limit);

#endif

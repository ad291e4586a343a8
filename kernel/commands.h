/* kernel/commands.h: the console's command table (help, version, cpus, reboot, ...). */
#ifndef WS_COMMANDS_H
#define WS_COMMANDS_H

/* commands_run_line: split a finished console line into words and run the command it names;
 * unknown commands and bad arguments get a one-line "error: ..." answer. Console core. */
void commands_run_line(char *line);

#endif

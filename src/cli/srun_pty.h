/* srun_pty.h — srun --pty's local terminal: raw mode while the step runs,
 * restored on every way out, and its size for the remote pseudo-terminal. */
#ifndef DRV_CLI_SRUN_PTY_H
#define DRV_CLI_SRUN_PTY_H

#include <stdbool.h>
#include <stdint.h>

/* When stdin is a terminal: saves its mode, then puts it in raw mode (keys
 * such as ^C travel as bytes to the remote terminal, which makes them
 * signals there). The saved mode comes back at exit(), on a fatal signal
 * and at srun_pty_restore. Without a terminal it does nothing. True when
 * raw mode is on. */
bool srun_pty_raw(void);
/* Puts the saved mode back (nothing when none was saved). Safe in a
 * signal handler. */
void srun_pty_restore(void);
/* The size of srun's terminal (stdin's, else stdout's); 0 0 without one. */
void srun_pty_size(uint16_t *rows, uint16_t *cols);

#endif

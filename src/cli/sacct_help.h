/* sacct_help.h — sacct's --help and --usage texts. */
#ifndef DRV_CLI_SACCT_HELP_H
#define DRV_CLI_SACCT_HELP_H

#include <stdio.h>

void sacct_print_help(FILE *f);
void sacct_print_usage(FILE *f);

#endif

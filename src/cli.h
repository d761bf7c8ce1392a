/* SPDX-License-Identifier: GPL-2.0 */
/* Command line: "tagtrace COMMAND [OPTION...]" into struct tt_env. */
#ifndef TT_CLI_H
#define TT_CLI_H

#include "env.h"

#define TT_VERSION "0.1.0"

enum tt_cli_result {
	TT_CLI_RUN,	/* env is filled: run the command */
	TT_CLI_DONE,	/* help or version printed: exit 0 */
	TT_CLI_ERROR,	/* a one-line error was printed: exit 2 */
};

enum tt_cli_result tt_cli_parse(int argc, char **argv, struct tt_env *env);

#endif /* TT_CLI_H */

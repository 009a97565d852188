/* slurm_json.c — Slurm's v0.0.42 envelope for the --json of the client
 * commands. Drover follows the shape of Slurm 24.11 here (the release that
 * brought data_parser v0.0.42), so meta.slurm names that release. */
#include "cli/slurm_json.h"

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

json_t *slurm_json_nv(bool set, bool infinite, int64_t number)
{
	return json_pack("{s:b,s:b,s:I}", "set", set, "infinite", infinite, "number",
			 (json_int_t)number);
}

json_t *slurm_json_num(int64_t n)
{
	return slurm_json_nv(true, false, n);
}

static json_t *client(void)
{
	const struct passwd *pw = getpwuid(getuid());
	const struct group *gr = getgrgid(getgid());
	const char *tty = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : NULL;

	return json_pack("{s:s,s:s,s:s}", "source", tty ? tty : "", "user",
			 pw ? pw->pw_name : "", "group", gr ? gr->gr_name : "");
}

json_t *slurm_json_meta(int argc, char **argv, const char *cluster)
{
	json_t *cmd = json_array();

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	return json_pack("{s:{s:s,s:s,s:s,s:s},s:o,s:o,s:{s:{s:s,s:s,s:s},s:s,s:s}}",
			 "plugin", "type", "", "name", "", "data_parser",
			 "data_parser/v0.0.42", "accounting_storage", "", "client",
			 client(), "command", cmd, "slurm", "version", "major", "24",
			 "micro", "0", "minor", "11", "release", "24.11.0", "cluster",
			 cluster ? cluster : "");
}

int slurm_json_print(json_t *resp, int argc, char **argv, const char *cluster, FILE *out)
{
	json_object_set_new(resp, "meta", slurm_json_meta(argc, argv, cluster));
	json_object_set_new(resp, "warnings", json_array());
	json_object_set_new(resp, "errors", json_array());
	if (json_dumpf(resp, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
		return 1;
	fputc('\n', out);
	return fflush(out) == 0 ? 0 : 1;
}

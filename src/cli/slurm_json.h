/* slurm_json.h — the pieces of Slurm's data_parser v0.0.42 output shared by
 * squeue --json and sinfo --json: number structs, the "meta" block and the
 * response envelope. Every function returns a new reference (jansson). */
#ifndef DRV_CLI_SLURM_JSON_H
#define DRV_CLI_SLURM_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* {"set":set,"infinite":infinite,"number":number}, v0.0.42's *_NO_VAL. */
json_t *slurm_json_nv(bool set, bool infinite, int64_t number);

/* A number that is always set: {"set":true,"infinite":false,"number":n}. */
json_t *slurm_json_num(int64_t n);

/* {"plugin":{...},"client":{...},"command":[argv...],"slurm":{...}}; argv is
 * borrowed; cluster may be NULL. */
json_t *slurm_json_meta(int argc, char **argv, const char *cluster);

/* Adds "meta", "warnings":[] and "errors":[] to resp (borrowed) and prints
 * it, indented, with a final newline. Returns 0, or 1 when writing failed. */
int slurm_json_print(json_t *resp, int argc, char **argv, const char *cluster, FILE *out);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* A refused command as a telemetry reply and a log line: one shape for the record, scan and trigger commands. */

#include <stdio.h>

#include <rte_telemetry.h>

#include "err.h"
#include "refusal.h"
#include "parse.h"

void
ibv_refusal_tel(struct rte_tel_data *d, const char *command, const struct err_refusal *r)
{
	char error[96];

	snprintf(error, sizeof(error), "%s refused: nothing changed", command);
	rte_tel_data_add_dict_string(d, "result", "refused");
	rte_tel_data_add_dict_string(d, "command", command);
	rte_tel_data_add_dict_string(d, "error", error);
	rte_tel_data_add_dict_string(d, "input", r->input);
	rte_tel_data_add_dict_string(d, "value", r->value);
	rte_tel_data_add_dict_string(d, "expected", r->expected);
	rte_tel_data_add_dict_string(d, "changed", "nothing");
}

void
ibv_refusal_log(FILE *f, const char *command, const char *params, const struct err_refusal *r)
{
	char p[512];

	fprintf(f, "dpdk-ibvcap: %s %s refused: %s '%s': expected %s\n", command,
		str_escape(params != NULL ? params : "", p, sizeof(p)), r->input, r->value,
		r->expected);
	fflush(f);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* An antenna as a command names it: its name in the layout, else its index. */

#include <stdint.h>
#include <string.h>

#include "antenna.h"
#include "parse.h"

int
ibv_antenna_of(const struct ibv_config *c, const char *s)
{
	uint64_t i;
	unsigned int a;

	for (a = 0; a < c->layout.nant; a++)
		if (strcmp(s, c->layout.ant_name[a]) == 0)
			return (int)a;
	if (parse_u64("antenna", s, 0, c->layout.nant - 1, &i, NULL, 0) == 0)
		return (int)i;
	return -1;
}

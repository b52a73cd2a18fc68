/* SPDX-License-Identifier: BSD-3-Clause */
/* Attaching to a capture instance's memzones (any DPDK process). */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_memzone.h>

#include "err.h"
#include "shm_eal.h"

void
shm_eal_instance(char out[SHM_NAMELEN])
{
	char dir[PATH_MAX];

	/* the runtime dir is /var/run/dpdk/<file-prefix> */
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	shm_instance(basename(dir), out);
}

int
shm_attach(struct shm_view *v, char *err, size_t len)
{
	const struct rte_memzone *mz;
	char name[SHM_NAMELEN];
	unsigned int a;
	int rc;

	memset(v, 0, sizeof(*v));
	shm_eal_instance(v->instance);
	shm_ctl_name(v->instance, name);
	mz = rte_memzone_lookup(name);
	if (mz == NULL)
		return err_set(err, len, -ENOENT,
			       "no antenna buffers '%s' in this DPDK instance: is dpdk-ibvcap running "
			       "with this --file-prefix, and without --no-buffers?", name);
	v->ctl = mz->addr;
	rc = shm_ctl_check(v->ctl, mz->len, err, len);
	if (rc != 0)
		return rc;
	v->nant = v->ctl->nant;
	for (a = 0; a < v->nant; a++) {
		char why[256];

		mz = rte_memzone_lookup(v->ctl->ant[a].zone);
		if (mz == NULL)
			return err_set(err, len, -ENOENT, "antenna %u buffer '%s' not found", a,
				       v->ctl->ant[a].zone);
		if (antbuf_check(mz->addr, mz->len, why, sizeof(why)) != 0)
			return err_set(err, len, -EPROTO, "antenna %u buffer '%s': %s", a,
				       v->ctl->ant[a].zone, why);
		v->b[a] = mz->addr;
	}
	if (v->ctl->sched_size != 0) {
		mz = rte_memzone_lookup(v->ctl->sched_zone);
		if (mz == NULL || mz->len < v->ctl->sched_size)
			return err_set(err, len, -ENOENT, "the schedule of scans '%s' not found",
				       v->ctl->sched_zone);
		v->sched = mz->addr;
		v->sched_len = v->ctl->sched_size;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_flow rule building (pure) and installation with fallback. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "steer.h"

void
steer_build(const struct steer_rule_spec *s, struct steer_flow *f)
{
	unsigned int a = 0;

	memset(f, 0, sizeof(*f));
	f->attr.ingress = 1;
	f->attr.group = s->group;
	f->attr.priority = s->priority;

	f->ip_spec.hdr.src_addr = rte_cpu_to_be_32(s->src_ip);
	f->ip_spec.hdr.dst_addr = rte_cpu_to_be_32(s->dst_ip);
	f->ip_mask.hdr.src_addr = RTE_BE32(0xffffffff);
	f->ip_mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	f->udp_spec.hdr.dst_port = rte_cpu_to_be_16(s->dport);
	f->udp_mask.hdr.dst_port = RTE_BE16(0xffff);

	/* ETH with no spec: any Ethernet frame (the multicast MAC is implied
	 * by the group; matching it too would only cost a table entry) */
	f->items[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	f->items[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	f->items[1].spec = &f->ip_spec;
	f->items[1].mask = &f->ip_mask;
	f->items[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	f->items[2].spec = &f->udp_spec;
	f->items[2].mask = &f->udp_mask;
	f->items[3].type = RTE_FLOW_ITEM_TYPE_END;

	if (s->count) {
		f->actions[a].type = RTE_FLOW_ACTION_TYPE_COUNT;
		f->actions[a++].conf = &f->count;
	}
	f->queue.index = s->queue;
	f->actions[a].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	f->actions[a++].conf = &f->queue;
	f->actions[a].type = RTE_FLOW_ACTION_TYPE_END;
}

void
steer_build_default(uint16_t queue, uint32_t priority, struct steer_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->attr.ingress = 1;
	f->attr.priority = priority;
	f->items[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	f->items[1].type = RTE_FLOW_ITEM_TYPE_END;
	f->queue.index = queue;
	f->actions[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	f->actions[0].conf = &f->queue;
	f->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

static void
describe(char *why, size_t len, const char *step, unsigned int rule,
	 int rc, const struct rte_flow_error *err)
{
	const char *e = strerror(rc < 0 ? -rc : rc);

	if (err->message != NULL && strcmp(err->message, e) != 0)
		snprintf(why, len, "%s of rule %u failed: %s (%s, error type %d)",
			 step, rule, err->message, e, (int)err->type);
	else
		snprintf(why, len, "%s of rule %u failed: %s", step, rule, e);
}

static int
install_all(struct steer_port *sp, const struct steer_rule_spec *rules,
	    unsigned int nrules, bool count)
{
	unsigned int i;

	for (i = 0; i < nrules; i++) {
		struct steer_rule_spec r = rules[i];
		struct steer_flow f;
		struct rte_flow_error err;
		int rc;

		r.count = count;
		steer_build(&r, &f);
		memset(&err, 0, sizeof(err));
		rc = rte_flow_validate(sp->port_id, &f.attr, f.items, f.actions, &err);
		if (rc != 0) {
			describe(sp->why, sizeof(sp->why), "validation", i, rc, &err);
			return STEER_REFUSED;
		}
		memset(&err, 0, sizeof(err));
		sp->flows[i] = rte_flow_create(sp->port_id, &f.attr, f.items,
					       f.actions, &err);
		if (sp->flows[i] == NULL) {
			/* net_tap here: validate passes, create fails */
			describe(sp->why, sizeof(sp->why), "creation", i,
				 -rte_errno, &err);
			return STEER_REFUSED;
		}
	}
	return STEER_OK;
}

static void
destroy_all(struct steer_port *sp)
{
	unsigned int i;

	for (i = 0; i < sp->nrules; i++) {
		if (sp->flows[i] != NULL) {
			struct rte_flow_error err;

			rte_flow_destroy(sp->port_id, sp->flows[i], &err);
			sp->flows[i] = NULL;
		}
	}
}

int
steer_install(struct steer_port *sp, uint16_t port_id,
	      const struct steer_rule_spec *rules, unsigned int nrules)
{
	char first_why[sizeof(sp->why)];
	int rc;

	memset(sp, 0, sizeof(*sp));
	sp->port_id = port_id;
	sp->nrules = nrules;
	sp->flows = calloc(nrules ? nrules : 1, sizeof(*sp->flows));
	if (sp->flows == NULL)
		return -ENOMEM;
	rc = install_all(sp, rules, nrules, true);
	if (rc == STEER_OK) {
		sp->counting = true;
		return STEER_OK;
	}
	/* COUNT is optional: try again without it before giving up */
	snprintf(first_why, sizeof(first_why), "%s", sp->why);
	destroy_all(sp);
	rc = install_all(sp, rules, nrules, false);
	if (rc == STEER_OK)
		return STEER_OK;
	destroy_all(sp);
	snprintf(sp->why, sizeof(sp->why), "%s", first_why);
	return STEER_REFUSED;
}

int
steer_query_count(const struct steer_port *sp, unsigned int rule,
		  uint64_t *hits, uint64_t *bytes)
{
	struct rte_flow_query_count q;
	struct rte_flow_action act[2];
	struct rte_flow_error err;
	int rc;

	if (rule >= sp->nrules || sp->flows[rule] == NULL || !sp->counting)
		return -ENOENT;
	memset(&q, 0, sizeof(q));
	memset(act, 0, sizeof(act));
	act[0].type = RTE_FLOW_ACTION_TYPE_COUNT;
	act[1].type = RTE_FLOW_ACTION_TYPE_END;
	rc = rte_flow_query(sp->port_id, sp->flows[rule], act, &q, &err);
	if (rc != 0)
		return rc;
	*hits = q.hits_set ? q.hits : 0;
	*bytes = q.bytes_set ? q.bytes : 0;
	return 0;
}

int
steer_install_default(struct steer_port *sp, uint16_t queue, uint32_t priority)
{
	struct steer_flow f;
	struct rte_flow_error err;
	int rc;

	steer_build_default(queue, priority, &f);
	memset(&err, 0, sizeof(err));
	rc = rte_flow_validate(sp->port_id, &f.attr, f.items, f.actions, &err);
	if (rc != 0) {
		describe(sp->why, sizeof(sp->why), "validation", sp->nrules, rc, &err);
		return rc;
	}
	sp->deflt = rte_flow_create(sp->port_id, &f.attr, f.items, f.actions, &err);
	if (sp->deflt == NULL) {
		describe(sp->why, sizeof(sp->why), "creation", sp->nrules,
			 -rte_errno, &err);
		return -rte_errno;
	}
	return 0;
}

void
steer_remove(struct steer_port *sp)
{
	if (sp->deflt != NULL) {
		struct rte_flow_error err;

		rte_flow_destroy(sp->port_id, sp->deflt, &err);
		sp->deflt = NULL;
	}
	if (sp->flows == NULL)
		return;
	destroy_all(sp);
	free(sp->flows);
	sp->flows = NULL;
	sp->nrules = 0;
}

int
steer_isolate(uint16_t port_id, bool on, char *why, size_t len)
{
	struct rte_flow_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = rte_flow_isolate(port_id, on ? 1 : 0, &err);
	if (rc != 0)
		describe(why, len, "isolation", 0, rc, &err);
	return rc;
}

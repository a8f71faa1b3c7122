/* group_options.c: pt_options.groups resolved to stages (group_options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greedy.h"
#include "group_options.h"

double pt_group_threshold(const pt_options *opt)
{
	return opt && (opt->overlap > 0 || opt->overlap_set) ? opt->overlap : PT_GROUP_DEFAULT_OVERLAP;
}

bool pt_group_over(double o, double th)
{
	return th > 0 ? o >= th : o > 0;
}

bool pt_group_sel_has_index(const pt_options *opt)
{
	for (int i = 0; opt && i < opt->ngroups; i++)
		if (!opt->groups[i].group)
			return true;
	return false;
}

/* The stage entry e names, or -1 with *err. */
static int stage_of(const pt_pipeline *p, const pt_group_options *e, int k, const char *const *names,
	int ngroups, char **err)
{
	char where[400], msg[1000];
	if (e->where)
		snprintf(where, sizeof(where), "%s", e->where);
	else
		snprintf(where, sizeof(where), "group option %d", k);
	const char *name = e->group;
	if (!name) {
		if (e->index < 0 || e->index >= ngroups || !names) {
			snprintf(msg, sizeof(msg), "%s: no group %d: the pipeline has %d groups (numbered from 0 "
				"as `explain` shows them without per-group entries)", where, e->index, ngroups);
			*err = strdup(msg);
			return -1;
		}
		name = names[e->index];
	}
	for (int s = 0; s < p->nstages; s++)
		if (!strcmp(p->stages[s]->name, name))
			return s;
	char shown[200];
	size_t n = 0;
	for (; name[n] && n + 1 < sizeof(shown); n++)   /* a C API name: printable only */
		shown[n] = name[n] > 0x20 && name[n] < 0x7f ? name[n] : '?';
	shown[n] = 0;
	snprintf(msg, sizeof(msg), "%s: no stage '%s' in the pipeline compiled (a point-wise stage is "
		"inlined into its readers; `explain` names the groups and their stages)", where, shown);
	*err = strdup(msg);
	return -1;
}

int pt_group_sel_init(pt_group_sel *sel, const pt_pipeline *p, const pt_options *opt,
	const char *const *names, int ngroups, char **err)
{
	memset(sel, 0, sizeof(*sel));
	sel->n = p->nstages;
	sel->opt = opt;
	sel->tile = malloc(sizeof(int) * ((size_t)p->nstages + 1));
	sel->theta = malloc(sizeof(double) * ((size_t)p->nstages + 1));
	sel->block = malloc(sizeof(int) * ((size_t)p->nstages + 1));
	for (int s = 0; s < p->nstages; s++) {
		sel->tile[s] = -1;
		sel->block[s] = -1;
		sel->theta[s] = -1;
	}
	for (int k = 0; opt && k < opt->ngroups; k++) {
		const pt_group_options *e = &opt->groups[k];
		int s = stage_of(p, e, k, names, ngroups, err);
		if (s < 0) {
			pt_group_sel_clear(sel);
			return -1;
		}
		sel->any = true;
		if (e->ntile > 0)
			sel->tile[s] = k;
		if (e->gpu_block[0] > 0)
			sel->block[s] = k;
		if (e->overlap_set && (sel->theta[s] < 0 || e->overlap < sel->theta[s]))
			sel->theta[s] = e->overlap;
	}
	return 0;
}

void pt_group_sel_clear(pt_group_sel *sel)
{
	free(sel->tile);
	free(sel->theta);
	free(sel->block);
	sel->tile = NULL;
	sel->theta = NULL;
	sel->block = NULL;
}

double pt_group_sel_threshold(const pt_group_sel *sel, const bool *in)
{
	double th = -1;
	for (int s = 0; sel->any && s < sel->n; s++)
		if (in[s] && sel->theta[s] >= 0 && (th < 0 || sel->theta[s] < th))
			th = sel->theta[s];
	return th >= 0 ? th : pt_group_threshold(sel->opt);
}

/* The last entry of per[] (per stage) naming one of the stages in[]. */
static const pt_group_options *last_entry(const pt_group_sel *sel, const int *per, const bool *in)
{
	int best = -1;
	for (int s = 0; sel->any && s < sel->n; s++)
		if (in[s] && per[s] > best)
			best = per[s];
	return best >= 0 ? &sel->opt->groups[best] : NULL;
}

const pt_group_options *pt_group_sel_tiles(const pt_group_sel *sel, const bool *in)
{
	return last_entry(sel, sel->tile, in);
}

const pt_group_options *pt_group_sel_block(const pt_group_sel *sel, const bool *in)
{
	return last_entry(sel, sel->block, in);
}

void pt_group_sel_choices(const pt_group_sel *sel, const pt_tiling *t, pt_group_choice *choice)
{
	bool *in = calloc((size_t)sel->n + 1, sizeof(bool));
	for (int i = 0; i < t->ngroups; i++) {
		const pt_group *g = &t->groups[i];
		memset(in, 0, (size_t)sel->n * sizeof(bool));
		for (int s = 0; s < g->nstages; s++)
			in[g->stages[s]->id] = true;
		choice[i].given = pt_group_sel_tiles(sel, in) != NULL;
		choice[i].theta = pt_group_sel_threshold(sel, in);
	}
	free(in);
}

const char *pt_group_name(const pt_group *g)
{
	return g->nstages ? g->stages[g->nstages - 1]->name : "";
}

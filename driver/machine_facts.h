/* machine_facts.h: the machine the tile model plans for. */
#ifndef PT_DRIVER_MACHINE_FACTS_H
#define PT_DRIVER_MACHINE_FACTS_H

#include "polytile.h"
#include "tile_model.h"

/* m from sysfs (cpu0's L1d, L2, L3; constants where it says nothing),
 * the threads (opt->threads, OMP_NUM_THREADS, the online CPUs) and the
 * target's vector width (opt->target's features, else the host's); then
 * the items of $PT_MACHINE ("l1=48K,l2=1M,l3=32M,threads=2,vector=64",
 * any of them) replace theirs.  0, or -1 with *err (caller frees) for a
 * malformed PT_MACHINE. */
int pt_machine_facts(const pt_options *opt, pt_machine *m, char **err);

/* The L3 bytes the tile model plans with, given the size sysfs reports and
 * the CPUs sharing it (sysfs's "0-1,4" list; NULL or malformed: unknown):
 * at most 12 MiB per sharing CPU, since a virtual machine reports the
 * host's whole L3 to its few vCPUs. */
int64_t pt_machine_l3_share(int64_t bytes, const char *cpu_list);

#endif

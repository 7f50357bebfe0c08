/*
 * srun's process-management interface for its step: MPICH's simple PMI-1 wire protocol over TCP
 * (PMI_PORT, PMI_ID), which Debian's MPICH speaks, so that the tasks srun starts form one MPI job
 * as they do under Slurm. One key-value space for the step, a barrier over all its tasks.
 */
#ifndef BERTH_PMI_H
#define BERTH_PMI_H

#include <poll.h>

struct pmi;

/*
 * Listens for the step's `ntasks` tasks, laid out count[i] on node i of `nnodes` in rank order.
 * Returns NULL, having said why, when it cannot.
 */
struct pmi *pmi_start(int ntasks, const int *count, int nnodes, const char *step);

/* Sets task t's PMI_PORT, PMI_ID, PMI_RANK and PMI_SIZE in the environment its spawn carries. */
void pmi_task_environment(const struct pmi *p, int t);

/* The most descriptors pmi_fds lists for a step of `ntasks` tasks. */
int pmi_max_fds(int ntasks);

/* The descriptors to wait on: at most max of them in fds; returns how many. */
int pmi_fds(struct pmi *p, struct pollfd *fds, int max);

/* Serves what the wait found ready (fds as pmi_fds filled them, with their revents). */
void pmi_serve(struct pmi *p, const struct pollfd *fds, int n);

/* The exit code a task asked the step to end with (cmd=abort), or -1. */
int pmi_aborted(const struct pmi *p);

#endif

/*
 * srun's PMIx server for its step, for Open MPI: its programs take no PMI-1, only PMIx. One server
 * in srun serves every task of the step over TCP (as pmi.c serves MPICH's), through Debian's
 * libpmix, which srun loads when it starts a step; without libpmix a step has PMI-1 only.
 */
#ifndef BERTH_STEP_PMIX_H
#define BERTH_STEP_PMIX_H

#include <poll.h>

struct step_pmix;

/* The step's nodes as srun lays its tasks out: count[i] tasks on node i, named name[i]. */
struct step_layout {
  const char *job;   /* the job's number, which PMIX_JOBID names */
  int ntasks, nnodes;
  const int *count;
  const char *const *name;
};

/*
 * Serves the step's tasks, or returns NULL: quietly when this host has no libpmix and `needed` is
 * 0, else having said why.
 */
struct step_pmix *step_pmix_start(const struct step_layout *layout, int needed);

/* Registers task t (on node `node`) and sets what its spawn carries: PMIX_NAMESPACE, PMIX_RANK,
 * the server's address... Returns -1, having said why, when PMIx refuses the task. */
int step_pmix_task_environment(struct step_pmix *p, int t, int node);

/* The most descriptors step_pmix_fds lists for a step of `ntasks` tasks. */
int step_pmix_max_fds(int ntasks);

/* The descriptors to wait on (the door's, a task's abort): at most max in fds; how many. */
int step_pmix_fds(struct step_pmix *p, struct pollfd *fds, int max);

/* Serves what the wait found ready (fds as step_pmix_fds filled them, with their revents). */
void step_pmix_serve(struct step_pmix *p, const struct pollfd *fds, int n);

/* Whether a task has asked the step to end (PMIx_Abort, Open MPI's MPI_Abort). */
int step_pmix_aborted(const struct step_pmix *p);

/* Stops serving: before srun exits, so that libpmix's thread ends first. */
void step_pmix_stop(struct step_pmix *p);

#endif

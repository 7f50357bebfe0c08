/*
 * The door of srun's PMIx server: srun's own listener for the step's tasks, in front of libpmix's.
 * libpmix reads a new connection's handshake in a blocking read on its only thread, so one
 * connection that says nothing would stop the step; it therefore listens on the loopback only and
 * takes connections from the door alone, and the door, in srun's loop, reads each handshake
 * without waiting on it, lets in only those that name the step's secret namespace, and relays them.
 */
#ifndef BERTH_STEP_PMIX_DOOR_H
#define BERTH_STEP_PMIX_DOOR_H

#include <netinet/in.h>
#include <poll.h>

struct door;

/*
 * Listens on every address for connections that name `secret` (the namespace), at most max_relays
 * of them at a time. NULL, having said why, when it cannot.
 */
struct door *door_open(const char *secret, int max_relays);

/* The port the tasks are to connect to. */
int door_port(const struct door *d);

/* Where libpmix listens (its loopback address), which the door relays to. */
void door_lead_to(struct door *d, struct sockaddr_in inner);

/* The descriptors to wait on: at most max of them in fds; returns how many. */
int door_fds(struct door *d, struct pollfd *fds, int max);

/* Serves what the wait found ready (fds as door_fds filled them, with their revents). */
void door_serve(struct door *d, const struct pollfd *fds, int n);

/* Closes the door and every connection through it. */
void door_close(struct door *d);

/* The most descriptors door_fds lists for a step of `ntasks` tasks. */
int door_max_fds(int ntasks);

#endif

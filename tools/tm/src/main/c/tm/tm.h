/*
 * berth-tm: pbsdsh, pbs_tmrsh and srun, the commands a job's own processes use to start tasks on the
 * job's nodes through the job's task manager (proto/src/main/proto/berth/tm.proto), on the Unix
 * socket named by $BERTH_TM_SOCKET. They run inside the job's memory cgroup, so they are a small
 * C program: one process, one poll loop, a few buffers, libc only.
 *
 * The TM client is a library the commands call, never the reverse (the build links it alone):
 *
 *   tm-wire.c    the TM messages, encoded and decoded by hand (protobuf wire format)
 *   tm-conn.c    the connection: frames in and out, the poll loop, relayed output, signals
 *   tm-client.c  what every command needs: messages, statuses, the job's nodes
 *
 * The commands (commands.h) sit on it:
 *
 *   pbsdsh.c     pbsdsh
 *   pbs_tmrsh.c  pbs_tmrsh
 *   srun.c       srun, Slurm's, inside a job
 *   berth-tm.c   main, which picks one
 */
#ifndef BERTH_TM_H
#define BERTH_TM_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "pbwire.h"

#define TM_SOCKET_VARIABLE "BERTH_TM_SOCKET"
#define TM_MAX_FRAME (4 << 20) /* the largest answer the task manager sends (tm.proto) */

/* ---- messages (tm-wire.c) ---- */


/* TmResponse's body, by field number; TM_NONE when it has none this program knows. */
enum tm_body { TM_NONE = 0, TM_ERROR = 10, TM_NODES, TM_SPAWNED, TM_EXITED, TM_OUTPUT, TM_ACK };

struct tm_response {
  uint64_t id;
  enum tm_body body;
  struct pb_bytes message; /* TmError.message */
  struct pb_bytes nodes;   /* the TmNodeList, for tm_nodes_parse */
  int32_t task_id;         /* TmSpawned, TmExited, TmOutput */
  int32_t exit_status;     /* TmExited: the code, 256 + signal, or -1 */
  struct pb_bytes error;   /* TmExited.error */
  int32_t stream;          /* TmOutput: 1 stdout, 2 stderr */
  struct pb_bytes data;    /* TmOutput.data */
};

/* TmSpawn; its env is always this process's environment. */
struct tm_spawn {
  const char *node;
  char *const *argv;
  int argc;
  const char *cwd;
  int32_t vnode;
  int relay_output;
  const int32_t *gpus; /* srun --gpus-per-task: the task's among the job's on its node */
  int ngpus;
};

struct tm_node {
  int32_t index, slots, first_vnode;
  const char *name;
};

/* A TmNodeList, copied out of its frame. */
struct tm_nodes {
  const char *job_id;
  struct tm_node *node;
  int n;
  char *store; /* the names' bytes */
};

/* 0, or -1 when the bytes are not a TmResponse. */
int tm_decode_response(const unsigned char *p, size_t n, struct tm_response *r);
/* 0, -1 when malformed, -2 when out of memory. */
int tm_nodes_parse(struct pb_bytes raw, struct tm_nodes *nodes);
void tm_nodes_free(struct tm_nodes *nodes);
const char *tm_body_name(enum tm_body body);

/* Request encoders: the frame's size (length prefix included), written at p when p is set. */
size_t tm_encode_nodes(unsigned char *p, uint64_t id);
size_t tm_encode_spawn(unsigned char *p, uint64_t id, const struct tm_spawn *spawn);
size_t tm_encode_wait(unsigned char *p, uint64_t id, int32_t task);
size_t tm_encode_signal(unsigned char *p, uint64_t id, int32_t task, int32_t signal);
size_t tm_encode_input(unsigned char *p, uint64_t id, int32_t task, const void *data, size_t n,
                       int eof);

/*
 * Request ids say what they ask, so an answer finds its request without a table: the kind in
 * the low three bits, above it the index of the task (pbsdsh's target) it is about.
 */
enum tm_kind { TM_ASK_NODES = 1, TM_ASK_SPAWN, TM_ASK_WAIT, TM_ASK_SIGNAL, TM_ASK_INPUT };
#define TM_ID(kind, index) (((uint64_t)(index) << 3) | (uint64_t)(kind))
#define TM_ID_KIND(id) ((int)((id)&7))
#define TM_ID_INDEX(id) ((id) >> 3)

/* ---- the connection (tm-conn.c) ---- */

struct tm_conn {
  int fd;                   /* -1 once the connection has ended */
  int ended;
  char why[600];            /* why it ended, as "lost the connection ...: WHY" prints it */
  char *refusal;            /* an error that answered no request: the task manager refusing */
  unsigned char *in, *out;  /* bytes received, not yet a whole frame; bytes not yet sent */
  size_t in_len, in_cap, out_start, out_len, out_cap;
  /* Called for every answer but relayed output; returns 0 when the answer is no request's. */
  int (*on_response)(void *ctx, const struct tm_response *r);
  void (*on_signal)(void *ctx, int signal); /* a caught signal (tm_trap) */
  /* Relayed output (TmOutput), when set; else it is written to stdout or stderr as it comes. */
  void (*on_output)(void *ctx, const struct tm_response *r);
  void *ctx;
};

/* Connects to $BERTH_TM_SOCKET; on failure prints why and returns -1. */
int tm_connect(struct tm_conn *c);
/* Bytes queued for the task manager and not yet sent. */
size_t tm_pending(const struct tm_conn *c);
/* Queue requests; after the connection has ended they are dropped. */
void tm_send_nodes(struct tm_conn *c);
void tm_send_spawn(struct tm_conn *c, uint64_t id, const struct tm_spawn *spawn);
void tm_send_wait(struct tm_conn *c, uint64_t id, int32_t task);
void tm_send_signal(struct tm_conn *c, uint64_t id, int32_t task, int32_t signal);
void tm_send_input(struct tm_conn *c, int32_t task, const void *data, size_t n, int eof);
/* From now on these signals are caught and handed to on_signal from tm_poll. */
void tm_trap(const int *signals, int n);
/*
 * One round of the loop: waits until the connection, a caught signal or one of the `n_extra`
 * descriptors of `extra` (may be NULL; one with fd -1 is left out) is ready, then reads and
 * dispatches whole frames, sends what it can and hands over the signals. Each extra's revents
 * tells the caller what its descriptor is ready for.
 */
void tm_poll(struct tm_conn *c, struct pollfd *extra, int n_extra);
/* Writes all of it, waiting when fd is non-blocking and full; a broken stdout loses the rest. */
void tm_write_all(int fd, const char *p, size_t n);

/* ---- what every command needs (tm-client.c) ---- */

extern const char *tm_program; /* "pbsdsh" or "pbs_tmrsh", the prefix of every message */

/* Names the command for every message and sets what it exits with when out of memory. */
void tm_init(const char *program, int failure_status);

/* Prints "PROGRAM: message" on stderr. */
void tm_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A copy of the bytes as a C string; exits on out of memory. */
char *tm_strdup(struct pb_bytes b);
void *tm_alloc(size_t n);
/* The message of an answer that is not the `expected` one: a refusal's text or a mismatch. */
char *tm_unexpected(const struct tm_response *r, enum tm_body expected);
/* TmExited.exit_status as a shell shows it: 0..255, 128 + signal, 127 when it could not start. */
int tm_exit_code(int32_t status);
/* Waits for the job's nodes; prints why and returns -1 when they do not come. */
int tm_get_nodes(struct tm_conn *c, struct tm_nodes *nodes);
/* The node named `host`: the exact name, else the same short name (up to the first dot). */
const struct tm_node *tm_find_node(const struct tm_nodes *nodes, const char *host);
/* Prints "HOST is not a node of job J (its nodes: a, b)". */
void tm_say_not_a_node(const struct tm_nodes *nodes, const char *host);

#endif

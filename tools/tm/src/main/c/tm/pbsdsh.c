/*
 * pbsdsh [-c copies | -n node | -h host] [-o] [-s] [-u] [-v] program [args...]: runs a program on
 * the nodes of the job it is called from, through the job's task manager. Task output comes back
 * to pbsdsh's own stdout and stderr, and pbsdsh exits with the worst task status; -o starts the
 * tasks with their output in the job's files and does not wait. docs/commands.md has the rest.
 *
 * A run is a row of targets (node, vnode), each a task that is sent, answered, tracked (stdin
 * closed, wait sent) and reported. Answers may come in any order, but starts are reported and
 * tasks tracked in the targets' order, and ends reported in that order once every task started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "tm.h"

#define USAGE                                                                                      \
  "usage: pbsdsh [-c copies | -n node | -h host] [-o] [-s] [-u] [-v] program [args...]\n"
/* --help: docs/commands.md's "pbsdsh" in short (it has the whole text, as has `man pbsdsh`) */
#define HELP                                                                                       \
  "pbsdsh: runs a program on the nodes of the job it is called from, through the job's task\n"    \
  "manager: inside the job's cgroup on each node, as the job's owner.\n\n" USAGE                   \
  "\n"                                                                                             \
  "  (none)    one task per vnode (a slot of the job), all at once\n"                              \
  "  -c N      N tasks, round-robin over the vnodes (wrapping when N is larger)\n"                 \
  "  -n i      one task, on vnode i\n"                                                             \
  "  -h host   one task, on that node (its name or its short name)\n"                              \
  "  -u        one task per node (its first vnode); with -c, the round-robin goes over nodes\n"    \
  "  -s        one task at a time: the next starts when the previous has exited\n"                 \
  "  -o        start the tasks and exit without waiting; their output goes to the job's files\n"   \
  "  -v        say on stderr when each task starts and exits\n"                                    \
  "  --help    this text\n"                                                                        \
  "  --version Berth's version\n"                                                                  \
  "\n"                                                                                             \
  "-c, -n and -h are mutually exclusive; options end at the program. Without -o, the tasks'\n"    \
  "output comes back to pbsdsh's. Exit status: the worst of the tasks' (128 + signal when one\n"   \
  "was killed, 127 when one could not start); 1 outside a job or for a node the job does not\n"   \
  "have; 2 on usage errors. The whole text: man pbsdsh, or docs/commands.md, \"pbsdsh\".\n"
#define SEND_AHEAD (64 << 10) /* spawn requests queued before the socket must take some */

struct options {
  int copies;       /* -c, or 0 */
  int vnode;        /* -n, or -1 */
  const char *host; /* -h */
  int no_wait, sequential, unique, verbose;
  char **argv; /* the program and its arguments */
  int argc;
};

/* Where a task runs: the job's node (an index into its list) and the slot it stands for. */
struct slot {
  int node;
  int32_t vnode;
};

enum state { UNSENT, SPAWNING, SPAWNED, NOT_SPAWNED, WAITING, EXITED, NOT_WAITED };

struct task {
  int32_t id;          /* PBS_TASKNUM, once spawned */
  int32_t status;      /* TmExited.exit_status */
  unsigned char state; /* enum state */
  unsigned char lost;  /* NOT_SPAWNED, NOT_WAITED: the connection failed, not the task manager */
  char *message;       /* why it was not spawned or waited for, or TmExited.error */
};

struct run {
  struct options o;
  struct tm_conn c;
  struct tm_nodes nodes;
  struct slot *pool; /* the targets are pool[i % pool_n] */
  int pool_n;
  int n;             /* targets to run; fewer once a signal stops a sequential run */
  struct task *task; /* one per target */
  int sent, started, finished;
  int caught; /* the last signal caught, passed on to every task */
  int lost_said;
  int status;
  char cwd[4096];
};

/* ---- the command line ---- */

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  fprintf(stderr, "pbsdsh: %s\n%s", message, USAGE);
  return -1;
}

/* A decimal int, maybe signed, nothing around it; a usage error when not, or below `least`. */
static int number(char option, const char *text, int least, int *value) {
  char *end;
  errno = 0;
  long n = strtol(text, &end, 10);
  int digits = *text == '+' || *text == '-' ? text[1] >= '0' && text[1] <= '9'
                                            : *text >= '0' && *text <= '9';
  if (!digits || *end || errno || n < least || n > INT_MAX) {
    const char *what = least > 0 ? "a positive number" : "a number";
    return usage_error("-%c takes %s, not '%s'", option, what, text);
  }
  *value = (int)n;
  return 0;
}

/*
 * getopt(3) with "+": options end at the program, so the program's own options stay its own.
 * Values are checked once every option has been read, so getopt's own errors come first.
 */
static int parse(int argc, char **argv, struct options *o) {
  const char **value = tm_alloc((size_t)argc * sizeof *value);
  char *flag = tm_alloc((size_t)argc);
  int count = 0, c;
  memset(o, 0, sizeof *o);
  o->vnode = -1;
  opterr = 0;
  while ((c = getopt(argc, argv, "+:c:n:h:osuv")) != -1) {
    if (c == '?') return usage_error("invalid option -- '%c'", optopt);
    if (c == ':') return usage_error("option requires an argument -- '%c'", optopt);
    flag[count] = (char)c;
    value[count++] = optarg;
  }
  for (int i = 0; i < count; i++) {
    switch (flag[i]) {
    case 'c':
      if (number('c', value[i], 1, &o->copies) < 0) return -1;
      break;
    case 'n':
      if (number('n', value[i], 0, &o->vnode) < 0) return -1;
      break;
    case 'h': o->host = value[i]; break;
    case 'o': o->no_wait = 1; break;
    case 's': o->sequential = 1; break;
    case 'u': o->unique = 1; break;
    case 'v': o->verbose = 1; break;
    }
  }
  if ((o->copies > 0) + (o->vnode >= 0) + (o->host != NULL) > 1)
    return usage_error("-c, -n and -h are mutually exclusive");
  if (optind >= argc) return usage_error("no program given");
  o->argv = argv + optind;
  o->argc = argc - optind;
  return 0;
}

/* ---- the targets ---- */

static int select_host(struct run *run) {
  const struct tm_node *node = tm_find_node(&run->nodes, run->o.host);
  if (!node) {
    tm_say_not_a_node(&run->nodes, run->o.host);
    return -1;
  }
  run->pool = tm_alloc(sizeof *run->pool);
  run->pool[0] = (struct slot){(int)(node - run->nodes.node), node->first_vnode};
  run->pool_n = run->n = 1;
  return 0;
}

static int select_vnode(struct run *run) {
  int v = run->o.vnode;
  for (int i = 0; i < run->pool_n; i++) {
    if (run->pool[i].vnode == v) {
      run->pool[0] = run->pool[i];
      run->pool_n = run->n = 1;
      return 0;
    }
  }
  if (run->pool_n == 0) {
    tm_say("vnode %d is out of range: the job has no vnodes", v);
  } else {
    tm_say("vnode %d is out of range: the job's vnodes are %d-%d", v, run->pool[0].vnode,
           run->pool[run->pool_n - 1].vnode);
  }
  return -1;
}

/*
 * The tasks to start, in order: one per vnode by default; -c N: N round-robin over the vnodes;
 * -n i: vnode i; -h host: that node's first vnode; -u: only each node's first vnode (with or
 * without -c). Prints why and returns -1 when the job has no such node or vnode.
 */
static int select_targets(struct run *run) {
  const struct tm_nodes *job = &run->nodes;
  if (run->o.host) return select_host(run);
  int first_only = run->o.unique && run->o.vnode < 0;
  size_t vnodes = 0;
  for (int i = 0; i < job->n; i++) {
    if (first_only) vnodes++;
    else if (job->node[i].slots > 0) vnodes += (size_t)job->node[i].slots;
  }
  run->pool = tm_alloc(vnodes * sizeof *run->pool);
  for (int i = 0; i < job->n; i++) {
    int slots = first_only ? 1 : job->node[i].slots;
    for (int s = 0; s < slots; s++) {
      run->pool[run->pool_n++] = (struct slot){i, job->node[i].first_vnode + s};
    }
  }
  if (run->o.vnode >= 0) return select_vnode(run);
  if (run->o.copies > 0 && run->pool_n == 0) {
    tm_say("job %s has no nodes to run on", job->job_id);
    return -1;
  }
  run->n = run->o.copies > 0 ? run->o.copies : run->pool_n;
  return 0;
}

static struct slot target(const struct run *run, int i) { return run->pool[i % run->pool_n]; }

static const char *node_of(const struct run *run, int i) {
  return run->nodes.node[target(run, i).node].name;
}

/* ---- the run ---- */

static void worst(struct run *run, int code) {
  if (code > run->status) run->status = code;
}

static void fail(struct task *t, enum state state, const char *why, int lost) {
  t->state = state;
  t->lost = lost;
  t->message = tm_strdup((struct pb_bytes){why, strlen(why)});
}

static void send_spawn(struct run *run, int i) {
  struct tm_spawn spawn = {.node = node_of(run, i), .argv = run->o.argv, .argc = run->o.argc,
                           .cwd = run->cwd, .vnode = target(run, i).vnode,
                           .relay_output = !run->o.no_wait};
  run->task[i].state = SPAWNING;
  tm_send_spawn(&run->c, TM_ID(TM_ASK_SPAWN, i), &spawn);
}

/* Closes the task's stdin (tasks get none, as in Torque) and asks for its end. */
static void track(struct run *run, int i) {
  struct task *t = &run->task[i];
  if (run->caught) tm_send_signal(&run->c, TM_ID(TM_ASK_SIGNAL, i), t->id, run->caught);
  tm_send_input(&run->c, t->id, NULL, 0, 1);
  tm_send_wait(&run->c, TM_ID(TM_ASK_WAIT, i), t->id);
  t->state = WAITING;
}

/* Sends spawns: all of them, a buffer's worth at a time; with -s one after the other's end. */
static int send_more(struct run *run) {
  int before = run->sent;
  while (run->sent < run->n) {
    if (run->o.sequential) {
      if (run->finished < run->sent) break;
      if (run->caught) {
        run->n = run->sent; /* after a signal no further task starts */
        break;
      }
    } else if (tm_pending(&run->c) >= SEND_AHEAD) {
      break;
    }
    send_spawn(run, run->sent++);
  }
  return run->sent != before;
}

/* Reports the answered spawns in order, tracking the tasks that started. */
static int report_starts(struct run *run) {
  int before = run->started;
  while (run->started < run->sent) {
    int i = run->started;
    struct task *t = &run->task[i];
    if (t->state == SPAWNING) {
      if (!run->c.ended) break;
      fail(t, NOT_SPAWNED, run->c.why, 1);
    }
    if (t->state == NOT_SPAWNED) {
      tm_say("cannot start %s on %s: %s", run->o.argv[0], node_of(run, i), t->message);
      worst(run, 1);
      free(t->message);
      t->message = NULL;
    } else {
      if (run->o.verbose)
        tm_say("task %d started on %s (vnode %d)", t->id, node_of(run, i), target(run, i).vnode);
      if (!run->o.no_wait) track(run, i);
    }
    run->started++;
  }
  return run->started != before;
}

static void report_end(struct run *run, int i) {
  struct task *t = &run->task[i];
  const char *node = node_of(run, i);
  if (t->state == EXITED) {
    int code = tm_exit_code(t->status);
    if (t->status < 0) {
      tm_say("task %d on %s could not start: %s", t->id, node, t->message);
    } else if (t->status >= 256) {
      /* A task killed by a signal (an OOM kill among them) is reported even without -v. */
      tm_say("task %d on %s was killed by signal %d (status %d)", t->id, node, t->status - 256,
             code);
    } else if (run->o.verbose) {
      tm_say("task %d on %s exited with status %d", t->id, node, code);
    }
    worst(run, code);
  } else if (t->state == NOT_WAITED) {
    if (!t->lost) {
      tm_say("cannot wait for task %d on %s: %s", t->id, node, t->message);
    } else if (!run->lost_said) {
      run->lost_said = 1;
      tm_say("lost the connection to the task manager: %s", t->message);
    }
    worst(run, 1);
  }
  free(t->message);
  t->message = NULL;
}

/* Reports the ends in order: all at once, after every start; with -s each after its start. */
static int report_ends(struct run *run) {
  if (run->o.no_wait) return 0;
  int before = run->finished;
  int ready = run->o.sequential || run->started == run->n ? run->started : 0;
  while (run->finished < ready) {
    struct task *t = &run->task[run->finished];
    if (t->state == WAITING) {
      if (!run->c.ended) break;
      fail(t, NOT_WAITED, run->c.why, 1);
    }
    report_end(run, run->finished++);
  }
  return run->finished != before;
}

static int on_response(void *ctx, const struct tm_response *r) {
  struct run *run = ctx;
  uint64_t i = TM_ID_INDEX(r->id);
  int kind = TM_ID_KIND(r->id);
  if (kind == TM_ASK_SIGNAL) return 1; /* an answer to a signal changes nothing */
  if (i >= (uint64_t)run->sent) return 0;
  struct task *t = &run->task[i];
  if (kind == TM_ASK_SPAWN && t->state == SPAWNING) {
    if (r->body != TM_SPAWNED) {
      t->state = NOT_SPAWNED;
      t->lost = r->body != TM_ERROR;
      t->message = tm_unexpected(r, TM_SPAWNED);
      return 1;
    }
    t->id = r->task_id;
    t->state = SPAWNED;
    return 1;
  }
  if (kind == TM_ASK_WAIT && t->state == WAITING) {
    if (r->body != TM_EXITED) {
      t->state = NOT_WAITED;
      t->lost = r->body != TM_ERROR;
      t->message = tm_unexpected(r, TM_EXITED);
      return 1;
    }
    t->status = r->exit_status;
    t->state = EXITED;
    if (r->exit_status < 0) t->message = tm_strdup(r->error);
    return 1;
  }
  return 0;
}

/* Passes a caught signal on to every task still running. */
static void on_signal(void *ctx, int signal) {
  struct run *run = ctx;
  run->caught = signal;
  for (int i = run->finished; i < run->started; i++) {
    struct task *t = &run->task[i];
    if (t->state == WAITING) tm_send_signal(&run->c, TM_ID(TM_ASK_SIGNAL, i), t->id, signal);
  }
}

static int done(const struct run *run) {
  return (run->o.no_wait ? run->started : run->finished) == run->n;
}

int pbsdsh_main(int argc, char **argv) {
  static struct run run;
  if (answered_help(argc, argv, HELP)) return 0;
  if (parse(argc, argv, &run.o) < 0) return 2;
  if (tm_connect(&run.c) < 0 || tm_get_nodes(&run.c, &run.nodes) < 0) return 1;
  if (select_targets(&run) < 0) return 1;
  if (!getcwd(run.cwd, sizeof run.cwd)) run.cwd[0] = 0; /* the owner's home, then */
  run.task = tm_alloc((size_t)run.n * sizeof *run.task);
  memset(run.task, 0, (size_t)run.n * sizeof *run.task);
  run.c.on_response = on_response;
  run.c.on_signal = on_signal;
  run.c.ctx = &run;
  if (!run.o.no_wait) tm_trap((const int[]){SIGINT, SIGTERM}, 2);
  for (;;) {
    while (send_more(&run) | report_starts(&run) | report_ends(&run)) {
    }
    if (done(&run)) return run.status;
    tm_poll(&run.c, NULL, 0);
  }
}

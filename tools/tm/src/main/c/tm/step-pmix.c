/*
 * The PMIx server of srun's step (step-pmix.h), for Open MPI's ranks, which take no PMI-1.
 *
 * One server, in srun, serves every task of the step over TCP, as pmi.c's does: libpmix listens on
 * the loopback, and the tasks, on this node and the others, reach it through srun's door
 * (step-pmix-door.c), whose address their PMIX_SERVER_URI* name. What a task may learn is what it
 * needs to form one MPI job with the others: the step's size, which ranks share its node (each
 * node's and each rank's data, and PMIX_HOSTNAME in its environment, which libpmix's client takes
 * as its own node's name) and the others' contact data, which libpmix collects from every task and
 * hands out itself; all of them are this server's "local" clients, so a fence completes here and
 * srun passes the collected data straight back.
 *
 * Who may join: a task names the step's namespace, a 128-bit random name that only its spawn
 * carries (the door lets in nobody else), and a rank registered for the job owner's uid. libpmix
 * keeps its store in its own memory (gds "hash"), not in shared memory that tasks on other nodes
 * could not map.
 *
 * libpmix is loaded when a step starts (dlopen), so that berth-tm, which pbsdsh and pbs_tmrsh are
 * too, runs where it is missing; its thread calls back here (fence, abort) while srun's own loop
 * runs, so an abort is handed over through a pipe and a registration waits on a condition.
 */
#define _GNU_SOURCE
#include "step-pmix.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "step-address.h"
#include "step-pmix-door.h"
#include "tm.h"

/* What srun takes from libpmix, looked up when a step starts. */
static struct {
  __typeof__(PMIx_server_init) *server_init;
  __typeof__(PMIx_server_finalize) *server_finalize;
  __typeof__(PMIx_server_register_nspace) *register_nspace;
  __typeof__(PMIx_server_register_client) *register_client;
  __typeof__(PMIx_server_setup_fork) *setup_fork;
  __typeof__(PMIx_generate_regex) *generate_regex;
  __typeof__(PMIx_generate_ppn) *generate_ppn;
  __typeof__(PMIx_Info_load) *info_load;
  __typeof__(PMIx_Value_destruct) *value_destruct;
  __typeof__(PMIx_Error_string) *error_string;
} lib;

struct step_pmix {
  const struct step_layout *layout;
  char nspace[PMIX_MAX_NSLEN + 1];
  struct door *door;
  char address[64]; /* this host's, for the tasks: the door's */
  int led;          /* whether the door knows where libpmix listens */
  int abort_pipe[2];
  int aborted;
};

/* The one step srun serves: libpmix's callbacks carry no pointer of ours. */
static struct step_pmix *serving;

/* ---- libpmix's thread: a registration's end, a fence, an abort ---- */

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_signal = PTHREAD_COND_INITIALIZER;

struct completion {
  int done;
  pmix_status_t status;
};

static void completed(pmix_status_t status, void *cbdata) {
  struct completion *c = cbdata;
  pthread_mutex_lock(&done_lock);
  c->status = status;
  c->done = 1;
  pthread_cond_broadcast(&done_signal);
  pthread_mutex_unlock(&done_lock);
}

/* What an operation of libpmix that answers through `completed` came to. */
static pmix_status_t awaited(pmix_status_t started, struct completion *c) {
  if (started != PMIX_SUCCESS) return started == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : started;
  pthread_mutex_lock(&done_lock);
  while (!c->done) pthread_cond_wait(&done_signal, &done_lock);
  pthread_mutex_unlock(&done_lock);
  return c->status;
}

static void release_copy(void *copy) { free(copy); }

/*
 * Every task is this server's own, so when libpmix asks for a fence it has collected everyone's
 * data already: that data is the fence's result. libpmix may free its buffer once this returns,
 * so the result is a copy, which libpmix releases when done with it.
 */
static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                           void *cbdata) {
  (void)procs, (void)nprocs, (void)info, (void)ninfo;
  char *copy = malloc(ndata ? ndata : 1);
  if (!copy) return PMIX_ERR_NOMEM;
  memcpy(copy, data, ndata);
  cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
  return PMIX_SUCCESS;
}

/* A task's PMIx_Abort (Open MPI's MPI_Abort): srun's loop ends the step's other tasks. */
static pmix_status_t abort_step(const pmix_proc_t *proc, void *server_object, int status,
                                const char msg[], pmix_proc_t procs[], size_t nprocs,
                                pmix_op_cbfunc_t cbfunc, void *cbdata) {
  (void)proc, (void)server_object, (void)status, (void)msg, (void)procs, (void)nprocs;
  (void)cbfunc, (void)cbdata;
  if (serving) {
    ssize_t ignored = write(serving->abort_pipe[1], "a", 1);
    (void)ignored; /* a full pipe has said it already */
  }
  return PMIX_OPERATION_SUCCEEDED;
}

/* Another task's data that the server has not got: never, as every task's is collected here. */
static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata) {
  (void)proc, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
  return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_server_module_t module = {
    .abort = abort_step,
    .fence_nb = fence,
    .direct_modex = direct_modex,
};

/* ---- loading libpmix ---- */

static int load_library(int needed) {
  void *handle = dlopen("libpmix.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    if (needed) tm_say("error: --mpi=pmix needs libpmix (Debian's libpmix2): %s", dlerror());
    return -1;
  }
  struct {
    const char *name;
    void **at;
  } wanted[] = {
      {"PMIx_server_init", (void **)&lib.server_init},
      {"PMIx_server_finalize", (void **)&lib.server_finalize},
      {"PMIx_server_register_nspace", (void **)&lib.register_nspace},
      {"PMIx_server_register_client", (void **)&lib.register_client},
      {"PMIx_server_setup_fork", (void **)&lib.setup_fork},
      {"PMIx_generate_regex", (void **)&lib.generate_regex},
      {"PMIx_generate_ppn", (void **)&lib.generate_ppn},
      {"PMIx_Info_load", (void **)&lib.info_load},
      {"PMIx_Value_destruct", (void **)&lib.value_destruct},
      {"PMIx_Error_string", (void **)&lib.error_string},
  };
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    *wanted[i].at = dlsym(handle, wanted[i].name);
    if (!*wanted[i].at) {
      tm_say("%s: libpmix.so.2 has no %s: PMIx needs version 4 or later",
             needed ? "error" : "warning", wanted[i].name);
      return -1;
    }
  }
  return 0;
}

/* ---- what the step's tasks are told ---- */

/* Grows a list of pmix_info_t, each loaded by libpmix (which copies what it is given). */
struct infos {
  pmix_info_t *item;
  size_t n, cap;
};

static void add(struct infos *l, const char *key, const void *value, pmix_data_type_t type) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->item = realloc(l->item, l->cap * sizeof *l->item);
    if (!l->item) {
      tm_say("out of memory");
      exit(1);
    }
  }
  memset(&l->item[l->n], 0, sizeof l->item[l->n]);
  lib.info_load(&l->item[l->n++], key, value, type);
}

/* Adds `inner` as one array-valued entry (libpmix copies it) and empties it. */
static void add_array(struct infos *l, const char *key, struct infos *inner) {
  pmix_data_array_t array = {.type = PMIX_INFO, .size = inner->n, .array = inner->item};
  add(l, key, &array, PMIX_DATA_ARRAY);
  for (size_t i = 0; i < inner->n; i++) lib.value_destruct(&inner->item[i].value);
  inner->n = 0;
}

static void free_infos(struct infos *l) {
  for (size_t i = 0; i < l->n; i++) lib.value_destruct(&l->item[i].value);
  free(l->item);
}

/* "a,b,c" of the nodes' names, and PMIx's per-node rank lists "0,1;2,3;4". */
static char *joined_names(const struct step_layout *s) {
  size_t size = 1;
  for (int i = 0; i < s->nnodes; i++) size += strlen(s->name[i]) + 1;
  char *text = tm_alloc(size);
  text[0] = 0;
  for (int i = 0; i < s->nnodes; i++) {
    if (i) strcat(text, ",");
    strcat(text, s->name[i]);
  }
  return text;
}

static char *ranks(int first, int count) {
  char *text = tm_alloc((size_t)count * 12 + 1);
  size_t at = 0;
  for (int r = first; r < first + count; r++) {
    at += (size_t)sprintf(text + at, at ? ",%d" : "%d", r);
  }
  text[at] = 0;
  return text;
}

static char *rank_map(const struct step_layout *s) {
  size_t size = 1;
  for (int i = 0; i < s->nnodes; i++) size += (size_t)s->count[i] * 12 + 1;
  char *text = tm_alloc(size);
  text[0] = 0;
  for (int i = 0, first = 0; i < s->nnodes; first += s->count[i++]) {
    char *node = ranks(first, s->count[i]);
    if (i) strcat(text, ";");
    strcat(text, node);
    free(node);
  }
  return text;
}

/* The job's data as a PMIx launcher gives it: sizes, the maps, each node's and each rank's. */
static int job_infos(const struct step_layout *s, struct infos *job) {
  uint32_t size = (uint32_t)s->ntasks, nodes = (uint32_t)s->nnodes, one = 1, app = 0;
  pmix_rank_t leader = 0;
  char *names = joined_names(s), *map = rank_map(s), *node_regex = NULL, *proc_regex = NULL;
  pmix_status_t rc = lib.generate_regex(names, &node_regex);
  if (rc == PMIX_SUCCESS) rc = lib.generate_ppn(map, &proc_regex);
  free(names);
  free(map);
  if (rc != PMIX_SUCCESS) {
    tm_say("error: PMIx cannot describe the step's nodes: %s", lib.error_string(rc));
    free(node_regex);
    return -1;
  }
  add(job, PMIX_JOBID, s->job, PMIX_STRING);
  add(job, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
  add(job, PMIX_JOB_SIZE, &size, PMIX_UINT32);
  add(job, PMIX_MAX_PROCS, &size, PMIX_UINT32);
  add(job, PMIX_APP_SIZE, &size, PMIX_UINT32);
  add(job, PMIX_JOB_NUM_APPS, &one, PMIX_UINT32);
  add(job, PMIX_APPLDR, &leader, PMIX_PROC_RANK);
  add(job, PMIX_NUM_NODES, &nodes, PMIX_UINT32);
  add(job, PMIX_NODE_MAP, node_regex, PMIX_REGEX);
  add(job, PMIX_PROC_MAP, proc_regex, PMIX_REGEX);
  free(node_regex);
  free(proc_regex);
  struct infos inner = {0};
  for (int i = 0, first = 0; i < s->nnodes; first += s->count[i++]) {
    uint32_t id = (uint32_t)i, local = (uint32_t)s->count[i];
    pmix_rank_t node_leader = (pmix_rank_t)first;
    char *peers = ranks(first, s->count[i]);
    add(&inner, PMIX_NODEID, &id, PMIX_UINT32);
    add(&inner, PMIX_HOSTNAME, s->name[i], PMIX_STRING);
    add(&inner, PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
    add(&inner, PMIX_NODE_SIZE, &local, PMIX_UINT32);
    add(&inner, PMIX_LOCALLDR, &node_leader, PMIX_PROC_RANK);
    add(&inner, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    add_array(job, PMIX_NODE_INFO_ARRAY, &inner);
    free(peers);
  }
  for (int i = 0, r = 0; i < s->nnodes; i++) {
    for (int l = 0; l < s->count[i]; l++, r++) {
      pmix_rank_t rank = (pmix_rank_t)r;
      uint16_t local = (uint16_t)l;
      uint32_t id = (uint32_t)i;
      add(&inner, PMIX_RANK, &rank, PMIX_PROC_RANK);
      add(&inner, PMIX_APPNUM, &app, PMIX_UINT32);
      add(&inner, PMIX_LOCAL_RANK, &local, PMIX_UINT16);
      add(&inner, PMIX_NODE_RANK, &local, PMIX_UINT16);
      add(&inner, PMIX_NODEID, &id, PMIX_UINT32);
      add(&inner, PMIX_HOSTNAME, s->name[i], PMIX_STRING);
      add_array(job, PMIX_PROC_INFO_ARRAY, &inner);
    }
  }
  free(inner.item);
  return 0;
}

/* ---- the server ---- */

/* Takes libpmix's loopback "HOST:PORT" (a URI's tail) as where the door leads; -1 if it is not. */
static int lead(struct step_pmix *p, const char *address) {
  char host[64];
  int port;
  struct sockaddr_in inner = {.sin_family = AF_INET};
  if (sscanf(address, "%63[0-9.]:%d", host, &port) != 2 || port < 1 || port > 65535 ||
      inet_pton(AF_INET, host, &inner.sin_addr) != 1 ||
      inner.sin_addr.s_addr != htonl(INADDR_LOOPBACK)) {
    return -1;
  }
  inner.sin_port = htons((uint16_t)port);
  if (!p->led) door_lead_to(p->door, inner);
  p->led = 1;
  return 0;
}

struct step_pmix *step_pmix_start(const struct step_layout *layout, int needed) {
  if (load_library(needed) < 0) return NULL;
  struct step_pmix *p = tm_alloc(sizeof *p);
  memset(p, 0, sizeof *p);
  p->layout = layout;
  unsigned char secret[16];
  if (pipe2(p->abort_pipe, O_NONBLOCK | O_CLOEXEC) < 0 ||
      getrandom(secret, sizeof secret, 0) != (ssize_t)sizeof secret) {
    tm_say("error: cannot serve the step's PMIx: %s", strerror(errno));
    free(p);
    return NULL;
  }
  int at = snprintf(p->nspace, sizeof p->nspace, "berth.%.200s.", layout->job);
  for (size_t i = 0; i < sizeof secret; i++) {
    at += snprintf(p->nspace + at, sizeof p->nspace - (size_t)at, "%02x", secret[i]);
  }
  /* the store in the server's memory, which remote tasks read through their connection */
  setenv("PMIX_MCA_gds", "hash", 1);
  step_host_address(p->address, sizeof p->address);
  p->door = door_open(p->nspace, 2 * layout->ntasks + 8);
  if (!p->door) {
    close(p->abort_pipe[0]);
    close(p->abort_pipe[1]);
    free(p);
    return NULL;
  }
  /* libpmix on the loopback only (no remote connections): the door is the way in */
  bool remote = false;
  struct infos init = {0};
  add(&init, PMIX_SERVER_REMOTE_CONNECTIONS, &remote, PMIX_BOOL);
  serving = p;
  pmix_status_t rc = lib.server_init(&module, init.item, init.n);
  free_infos(&init);
  if (rc != PMIX_SUCCESS) {
    tm_say("error: cannot serve the step's PMIx: %s", lib.error_string(rc));
    serving = NULL;
    door_close(p->door);
    close(p->abort_pipe[0]);
    close(p->abort_pipe[1]);
    free(p);
    return NULL;
  }
  struct infos job = {0};
  if (job_infos(layout, &job) < 0) {
    free_infos(&job);
    step_pmix_stop(p);
    return NULL;
  }
  struct completion c = {0};
  rc = awaited(lib.register_nspace(p->nspace, layout->ntasks, job.item, job.n, completed, &c), &c);
  free_infos(&job);
  if (rc != PMIX_SUCCESS) {
    tm_say("error: PMIx refuses the step: %s", lib.error_string(rc));
    step_pmix_stop(p);
    return NULL;
  }
  return p;
}

int step_pmix_task_environment(struct step_pmix *p, int t, int node) {
  pmix_proc_t proc;
  memset(&proc, 0, sizeof proc);
  snprintf(proc.nspace, sizeof proc.nspace, "%s", p->nspace);
  proc.rank = (pmix_rank_t)t;
  struct completion c = {0};
  pmix_status_t rc =
      awaited(lib.register_client(&proc, getuid(), getgid(), NULL, completed, &c), &c);
  char **env = NULL;
  if (rc == PMIX_SUCCESS) rc = lib.setup_fork(&proc, &env);
  if (rc != PMIX_SUCCESS) {
    tm_say("error: PMIx refuses task %d: %s", t, lib.error_string(rc));
    return -1;
  }
  for (char **e = env; e && *e; e++) {
    char *equals = strchr(*e, '=');
    if (!equals) continue;
    *equals = 0;
    char *uri = strncmp(*e, "PMIX_SERVER_URI", 15) ? NULL : strstr(equals + 1, "tcp4://");
    if (uri && lead(p, uri + 7) == 0) {
      /* "NAME;tcp4://HOST:PORT" of the door's, not libpmix's loopback one */
      char door[512];
      snprintf(door, sizeof door, "%.*stcp4://%s:%d", (int)(uri - (equals + 1)), equals + 1,
               p->address, door_port(p->door));
      setenv(*e, door, 1);
    } else {
      setenv(*e, equals + 1, 1);
    }
  }
  for (char **e = env; e && *e; e++) free(*e);
  free(env);
  if (!p->led) {
    tm_say("error: PMIx gives task %d no server address srun can relay to", t);
    return -1;
  }
  /* the name libpmix's client takes for its node, which the node's data above is under */
  setenv("PMIX_HOSTNAME", p->layout->name[node], 1);
  return 0;
}

int step_pmix_max_fds(int ntasks) { return 1 + door_max_fds(ntasks); }

int step_pmix_fds(struct step_pmix *p, struct pollfd *fds, int max) {
  if (max < 1) return 0;
  fds[0] = (struct pollfd){.fd = p->abort_pipe[0], .events = POLLIN};
  return 1 + door_fds(p->door, fds + 1, max - 1);
}

void step_pmix_serve(struct step_pmix *p, const struct pollfd *fds, int n) {
  if (n < 1) return;
  if (fds[0].revents) {
    char drained[64];
    while (read(p->abort_pipe[0], drained, sizeof drained) > 0) p->aborted = 1;
  }
  door_serve(p->door, fds + 1, n - 1);
}

int step_pmix_aborted(const struct step_pmix *p) { return p->aborted; }

void step_pmix_stop(struct step_pmix *p) {
  lib.server_finalize();
  serving = NULL;
  door_close(p->door);
  close(p->abort_pipe[0]);
  close(p->abort_pipe[1]);
  free(p);
}

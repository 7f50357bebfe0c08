/*
 * The PMI-1 server of srun's step (pmi.h). Each task gets PMI_PORT (this host's address and the
 * port) and PMI_ID, a random number of its own: a connection is its task's only once it names that
 * number (MPICH's `cmd=initack pmiid=N`), so that nobody else on the network can join the step,
 * read its keys or put its own. What a connection may send is bounded (a line, the keys' bytes),
 * and a connection that breaks the protocol is closed. The protocol is MPICH's simple PMI, version
 * 1.1, as its client (src/pmi/simple) speaks it: newline-ended lines of `key=value` words.
 */
#define _GNU_SOURCE
#include "pmi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "step-address.h"
#include "tm.h"

#define LINE_MAX_BYTES 4096          /* MPICH's lines are at most 1024 */
#define KVS_MAX_BYTES (64L << 20)    /* every task's keys and values together */
#define MAX_STRANGERS 64             /* connections that have not named their task yet */

struct conn {
  int fd;
  int task; /* -1 until it names its PMI_ID */
  int in_barrier;
  char in[LINE_MAX_BYTES];
  size_t in_len;
  char *out;
  size_t out_len, out_cap;
};

struct pmi {
  int listen_fd, port;
  char host[256];
  char kvsname[64];
  char *mapping; /* PMI_process_mapping */
  int ntasks;
  uint32_t *secret;
  int *joined;
  struct conn *conn;
  int nconn, conn_cap, strangers;
  char **key, **value;
  int nkeys, keys_cap;
  int *slot;     /* open addressing over the keys: index + 1, 0 for an empty slot */
  size_t slots;  /* a power of two, at least twice the keys */
  long kvs_bytes;
  int in_barrier;
  int aborted;
};

static void put_key(struct pmi *p, const char *key, const char *value);

/* MPICH's block layout of ranks over nodes: (vector,(first node,nodes,ranks on each),...). */
static char *process_mapping(const int *count, int nnodes) {
  char *text = tm_alloc((size_t)nnodes * 40 + 16);
  size_t at = (size_t)sprintf(text, "(vector");
  for (int i = 0; i < nnodes;) {
    int same = 1;
    while (i + same < nnodes && count[i + same] == count[i]) same++;
    at += (size_t)sprintf(text + at, ",(%d,%d,%d)", i, same, count[i]);
    i += same;
  }
  sprintf(text + at, ")");
  return text;
}

struct pmi *pmi_start(int ntasks, const int *count, int nnodes, const char *step) {
  struct pmi *p = tm_alloc(sizeof *p);
  memset(p, 0, sizeof *p);
  p->aborted = -1;
  p->ntasks = ntasks;
  p->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
  socklen_t len = sizeof a;
  if (p->listen_fd < 0 || bind(p->listen_fd, (struct sockaddr *)&a, sizeof a) < 0 ||
      listen(p->listen_fd, 128) < 0 ||
      getsockname(p->listen_fd, (struct sockaddr *)&a, &len) < 0) {
    tm_say("error: cannot serve the step's PMI: %s", strerror(errno));
    if (p->listen_fd >= 0) close(p->listen_fd);
    free(p);
    return NULL;
  }
  p->port = ntohs(a.sin_port);
  step_host_address(p->host, sizeof p->host);
  p->secret = tm_alloc((size_t)ntasks * sizeof *p->secret);
  p->joined = tm_alloc((size_t)ntasks * sizeof *p->joined);
  memset(p->joined, 0, (size_t)ntasks * sizeof *p->joined);
  for (int t = 0; t < ntasks; t++) {
    uint32_t r = 0;
    while (r == 0) { /* 1 .. 2^31-1: MPICH reads PMI_ID with atoi */
      if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        tm_say("error: cannot serve the step's PMI: no random numbers: %s", strerror(errno));
        exit(1);
      }
      r &= 0x7fffffff;
    }
    p->secret[t] = r;
  }
  snprintf(p->kvsname, sizeof p->kvsname, "berth_%s_%d", step, (int)getpid());
  for (char *c = p->kvsname; *c; c++) {
    if (*c == ' ' || *c == '=' || *c == '\n') *c = '_';
  }
  p->mapping = process_mapping(count, nnodes);
  put_key(p, "PMI_process_mapping", p->mapping);
  return p;
}

static void set_number(const char *name, long value) {
  char text[32];
  snprintf(text, sizeof text, "%ld", value);
  setenv(name, text, 1);
}

void pmi_task_environment(const struct pmi *p, int t) {
  char port[300];
  snprintf(port, sizeof port, "%s:%d", p->host, p->port);
  setenv("PMI_PORT", port, 1);
  set_number("PMI_ID", p->secret[t]);
  set_number("PMI_RANK", t);
  set_number("PMI_SIZE", p->ntasks);
}

/* The listener, a connection per task (a task's PMI_ID is used up once it names it), strangers. */
int pmi_max_fds(int ntasks) { return 1 + ntasks + MAX_STRANGERS; }

int pmi_fds(struct pmi *p, struct pollfd *fds, int max) {
  int n = 0;
  if (n < max) fds[n++] = (struct pollfd){.fd = p->listen_fd, .events = POLLIN};
  for (int i = 0; i < p->nconn && n < max; i++) {
    struct conn *c = &p->conn[i];
    fds[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN | (c->out_len ? POLLOUT : 0)};
  }
  return n;
}

int pmi_aborted(const struct pmi *p) { return p->aborted; }

/* ---- the keys ---- */

/* FNV-1a: every rank gets every other rank's keys, so a lookup must not walk them all. */
static size_t hash(const char *key) {
  size_t h = 14695981039346656037UL;
  for (const unsigned char *c = (const unsigned char *)key; *c; c++) h = (h ^ *c) * 1099511628211UL;
  return h;
}

/* The slot key belongs in: its own, or the empty one where it would go. */
static size_t slot_of(const struct pmi *p, const char *key) {
  size_t at = hash(key) & (p->slots - 1);
  while (p->slot[at] && strcmp(p->key[p->slot[at] - 1], key)) at = (at + 1) & (p->slots - 1);
  return at;
}

static int find_key(const struct pmi *p, const char *key) {
  return p->slots ? p->slot[slot_of(p, key)] - 1 : -1;
}

/* Twice the slots once half are taken, every key in its new place. */
static void grow_slots(struct pmi *p) {
  free(p->slot);
  p->slots = p->slots ? 2 * p->slots : 128;
  p->slot = tm_alloc(p->slots * sizeof *p->slot);
  memset(p->slot, 0, p->slots * sizeof *p->slot);
  for (int i = 0; i < p->nkeys; i++) p->slot[slot_of(p, p->key[i])] = i + 1;
}

static void put_key(struct pmi *p, const char *key, const char *value) {
  int i = find_key(p, key);
  if (i >= 0) {
    p->kvs_bytes -= (long)strlen(p->value[i]);
    free(p->value[i]);
    p->value[i] = tm_strdup((struct pb_bytes){value, strlen(value)});
    p->kvs_bytes += (long)strlen(value);
    return;
  }
  if (p->nkeys == p->keys_cap) {
    p->keys_cap = p->keys_cap ? 2 * p->keys_cap : 64;
    p->key = realloc(p->key, (size_t)p->keys_cap * sizeof *p->key);
    p->value = realloc(p->value, (size_t)p->keys_cap * sizeof *p->value);
    if (!p->key || !p->value) {
      tm_say("out of memory");
      exit(1);
    }
  }
  p->key[p->nkeys] = tm_strdup((struct pb_bytes){key, strlen(key)});
  p->value[p->nkeys] = tm_strdup((struct pb_bytes){value, strlen(value)});
  p->kvs_bytes += (long)(strlen(key) + strlen(value));
  p->nkeys++;
  if ((size_t)p->nkeys * 2 > p->slots) {
    grow_slots(p);
  } else {
    p->slot[slot_of(p, key)] = p->nkeys;
  }
}

/* ---- connections ---- */

static void say(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct conn *c, const char *fmt, ...) {
  char line[LINE_MAX_BYTES + 256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
  if (c->out_len + (size_t)n > c->out_cap) {
    c->out_cap = (c->out_len + (size_t)n) * 2;
    c->out = realloc(c->out, c->out_cap);
    if (!c->out) {
      tm_say("out of memory");
      exit(1);
    }
  }
  memcpy(c->out + c->out_len, line, (size_t)n);
  c->out_len += (size_t)n;
}

static void drop(struct pmi *p, int i) {
  struct conn *c = &p->conn[i];
  close(c->fd);
  if (c->task < 0) p->strangers--;
  if (c->in_barrier) p->in_barrier--;
  free(c->out);
  p->conn[i] = p->conn[--p->nconn];
}

static void accept_one(struct pmi *p) {
  int fd = accept4(p->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return;
  if (p->strangers >= MAX_STRANGERS) { /* the oldest stranger makes room */
    for (int i = 0; i < p->nconn; i++) {
      if (p->conn[i].task < 0) {
        drop(p, i);
        break;
      }
    }
  }
  if (p->nconn == p->conn_cap) {
    p->conn_cap = p->conn_cap ? 2 * p->conn_cap : 16;
    p->conn = realloc(p->conn, (size_t)p->conn_cap * sizeof *p->conn);
    if (!p->conn) {
      tm_say("out of memory");
      exit(1);
    }
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  p->conn[p->nconn++] = (struct conn){.fd = fd, .task = -1};
  p->strangers++;
}

/* The value of `key` among a line's words (split in place into keys and values), or NULL. */
struct words {
  char *key[16], *value[16];
  int n;
};

static void split(char *line, struct words *w) {
  w->n = 0;
  for (char *save = NULL, *word = strtok_r(line, " ", &save); word && w->n < 16;
       word = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(word, '=');
    if (!eq) continue;
    *eq = 0;
    w->key[w->n] = word;
    w->value[w->n] = eq + 1;
    w->n++;
  }
}

static const char *get(const struct words *w, const char *key) {
  for (int i = 0; i < w->n; i++) {
    if (!strcmp(w->key[i], key)) return w->value[i];
  }
  return NULL;
}

static void barrier_out(struct pmi *p) {
  for (int i = 0; i < p->nconn; i++) {
    if (p->conn[i].in_barrier) {
      p->conn[i].in_barrier = 0;
      say(&p->conn[i], "cmd=barrier_out\n");
    }
  }
  p->in_barrier = 0;
}

/* One line of connection i; returns 0 when the connection is to be closed. */
static int command(struct pmi *p, int i, char *line) {
  struct conn *c = &p->conn[i];
  struct words w;
  split(line, &w);
  const char *cmd = get(&w, "cmd");
  if (!cmd) return 0;
  if (c->task < 0) { /* the first line names the task, by its secret */
    const char *id = get(&w, "pmiid");
    if (strcmp(cmd, "initack") || !id) return 0;
    char *end;
    unsigned long n = strtoul(id, &end, 10);
    for (int t = 0; t < p->ntasks && *id && !*end; t++) {
      if (p->secret[t] == n && !p->joined[t]) {
        p->joined[t] = 1;
        c->task = t;
        p->strangers--;
        say(c, "cmd=initack\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0\n", p->ntasks, t);
        return 1;
      }
    }
    return 0;
  }
  if (!strcmp(cmd, "init")) {
    say(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  } else if (!strcmp(cmd, "get_maxes")) {
    say(c, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  } else if (!strcmp(cmd, "get_appnum")) {
    say(c, "cmd=appnum appnum=0\n");
  } else if (!strcmp(cmd, "get_my_kvsname")) {
    say(c, "cmd=my_kvsname kvsname=%s\n", p->kvsname);
  } else if (!strcmp(cmd, "get_universe_size")) {
    say(c, "cmd=universe_size size=%d\n", p->ntasks);
  } else if (!strcmp(cmd, "put")) {
    const char *key = get(&w, "key"), *value = get(&w, "value");
    if (!key || !value || strlen(key) > 64) {
      say(c, "cmd=put_result rc=-1 msg=bad_put\n");
    } else if (p->kvs_bytes + (long)(strlen(key) + strlen(value)) > KVS_MAX_BYTES) {
      say(c, "cmd=put_result rc=-1 msg=the_step's_keys_take_all_the_room_they_have\n");
    } else {
      put_key(p, key, value);
      say(c, "cmd=put_result rc=0 msg=success\n");
    }
  } else if (!strcmp(cmd, "get")) {
    const char *key = get(&w, "key");
    int k = key ? find_key(p, key) : -1;
    if (k < 0) {
      say(c, "cmd=get_result rc=-1 msg=key_not_found\n");
    } else {
      say(c, "cmd=get_result rc=0 msg=success value=%s\n", p->value[k]);
    }
  } else if (!strcmp(cmd, "barrier_in")) {
    if (!c->in_barrier) {
      c->in_barrier = 1;
      p->in_barrier++;
    }
    if (p->in_barrier == p->ntasks) barrier_out(p);
  } else if (!strcmp(cmd, "finalize")) {
    say(c, "cmd=finalize_ack\n");
  } else if (!strcmp(cmd, "abort")) {
    const char *code = get(&w, "exitcode");
    int n = code ? atoi(code) : 1;
    p->aborted = n > 0 && n < 256 ? n : 1;
  } else {
    say(c, "cmd=%.64s_result rc=-1 msg=not_served_by_berth\n", cmd);
  }
  return 1;
}

/* Reads what connection i sent and answers its whole lines; returns 0 when it is to close. */
static int receive(struct pmi *p, int i) {
  struct conn *c = &p->conn[i];
  ssize_t n = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
  if (n == 0) return 0;
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  c->in_len += (size_t)n;
  for (;;) {
    char *nl = memchr(p->conn[i].in, '\n', p->conn[i].in_len);
    c = &p->conn[i];
    if (!nl) return c->in_len < sizeof c->in; /* a line longer than any the protocol has */
    *nl = 0;
    size_t used = (size_t)(nl - c->in) + 1;
    char line[LINE_MAX_BYTES];
    memcpy(line, c->in, used);
    memmove(c->in, c->in + used, c->in_len - used);
    c->in_len -= used;
    if (!command(p, i, line)) return 0;
  }
}

static int send_some(struct conn *c) {
  ssize_t n = write(c->fd, c->out, c->out_len);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  memmove(c->out, c->out + n, c->out_len - (size_t)n);
  c->out_len -= (size_t)n;
  return 1;
}

void pmi_serve(struct pmi *p, const struct pollfd *fds, int n) {
  /* the connections as pmi_fds listed them: by descriptor, since closing one moves another */
  for (int f = 1; f < n; f++) {
    if (!fds[f].revents) continue;
    for (int i = 0; i < p->nconn; i++) {
      if (p->conn[i].fd != fds[f].fd) continue;
      int keep = 1;
      if (fds[f].revents & (POLLIN | POLLHUP | POLLERR)) keep = receive(p, i);
      if (keep && p->conn[i].out_len) keep = send_some(&p->conn[i]);
      if (!keep) drop(p, i);
      break;
    }
  }
  for (int i = 0; i < p->nconn; i++) { /* what the lines just read asked others to hear */
    if (p->conn[i].out_len && !send_some(&p->conn[i])) drop(p, i--);
  }
  if (n > 0 && (fds[0].revents & POLLIN)) accept_one(p);
}

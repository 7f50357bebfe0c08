/*
 * The door of srun's PMIx server (step-pmix-door.h).
 *
 * A connection is a stranger until its PMIx handshake has come whole: a 16-byte header whose third
 * word is the length of what follows, then that much, which names the task's namespace (with its
 * NUL) among the security module, credential and version that libpmix's client sends. The
 * namespace carries 128 random bits that only the step's spawns carry, so a handshake that names
 * it comes from a task; any other is closed unanswered. Strangers are bounded (the oldest makes
 * room), as is what each may send before it names the namespace, and the door never waits for one.
 *
 * A task's connection, once let in, is joined to a connection of srun's own to libpmix's loopback
 * listener, and the door copies bytes both ways, reading from one side only while what waits for
 * the other is under PIPE_BYTES. libpmix takes a loopback connection only from a port the door
 * opened (the accept below): nobody else on srun's node can reach its blocking handshake either.
 */
#define _GNU_SOURCE
#include "step-pmix-door.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tm.h"

#define HEADER_BYTES 16                 /* libpmix's pmix_ptl_hdr_t on a 64-bit host */
#define HANDSHAKE_MAX_BYTES (16 << 10)  /* libpmix's client sends well under 1 KiB */
#define MAX_STRANGERS 64
#define PIPE_BYTES (256 << 10)          /* what may wait for either side of a relayed connection */

struct buffer {
  char *p;
  size_t len, cap;
};

/* A connection to the door: a stranger while inner < 0, else relayed to libpmix. */
struct link {
  int outer, inner;
  struct buffer to_inner, to_outer;
};

struct door {
  int listen_fd, port;
  char *secret;
  size_t secret_len; /* with its NUL */
  struct sockaddr_in inner;
  struct link *link;
  int nlinks, cap, strangers, relays, max_relays;
};

/* ---- libpmix's accept: only connections from the door ---- */

static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;
static in_port_t opened[64]; /* the door's ports towards libpmix, not yet accepted */
static int nopened;

static int remember(in_port_t port) {
  pthread_mutex_lock(&opened_lock);
  int room = nopened < (int)(sizeof opened / sizeof opened[0]);
  if (room) opened[nopened++] = port;
  pthread_mutex_unlock(&opened_lock);
  return room ? 0 : -1;
}

/* Whether the door opened `port` (and forgets it: each is accepted once). */
static int opened_by_door(in_port_t port) {
  pthread_mutex_lock(&opened_lock);
  int found = 0;
  for (int i = 0; i < nopened && !found; i++) {
    if (opened[i] == port) {
      opened[i] = opened[--nopened];
      found = 1;
    }
  }
  pthread_mutex_unlock(&opened_lock);
  return found;
}

/*
 * berth-tm exports accept (build-native), so the libpmix srun loads calls this one: srun's own
 * code accepts with accept4. A connection from anywhere but a port the door opened is closed before
 * libpmix reads from it, and libpmix's listener goes on as after an aborted connection.
 */
int accept(int fd, struct sockaddr *addr, socklen_t *len) {
  int c = accept4(fd, addr, len, 0);
  if (c < 0) return c;
  struct sockaddr_in peer;
  socklen_t size = sizeof peer;
  if (getpeername(c, (struct sockaddr *)&peer, &size) == 0 && peer.sin_family == AF_INET &&
      peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && opened_by_door(peer.sin_port)) {
    return c;
  }
  close(c);
  errno = ECONNABORTED;
  return -1;
}

/* ---- the door ---- */

struct door *door_open(const char *secret, int max_relays) {
  struct door *d = tm_alloc(sizeof *d);
  memset(d, 0, sizeof *d);
  d->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
  socklen_t len = sizeof a;
  if (d->listen_fd < 0 || bind(d->listen_fd, (struct sockaddr *)&a, sizeof a) < 0 ||
      listen(d->listen_fd, 128) < 0 ||
      getsockname(d->listen_fd, (struct sockaddr *)&a, &len) < 0) {
    tm_say("error: cannot serve the step's PMIx: %s", strerror(errno));
    if (d->listen_fd >= 0) close(d->listen_fd);
    free(d);
    return NULL;
  }
  d->port = ntohs(a.sin_port);
  d->secret = strdup(secret);
  d->secret_len = strlen(secret) + 1;
  d->max_relays = max_relays;
  return d;
}

int door_port(const struct door *d) { return d->port; }

void door_lead_to(struct door *d, struct sockaddr_in inner) { d->inner = inner; }

int door_max_fds(int ntasks) { return 1 + MAX_STRANGERS + 2 * (2 * ntasks + 8); }

static void close_link(struct door *d, int i) {
  struct link *l = &d->link[i];
  close(l->outer);
  if (l->inner >= 0) {
    close(l->inner);
    d->relays--;
  } else {
    d->strangers--;
  }
  free(l->to_inner.p);
  free(l->to_outer.p);
  d->link[i] = d->link[--d->nlinks];
}

static void accept_one(struct door *d) {
  int fd = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return;
  if (d->strangers >= MAX_STRANGERS) { /* the oldest stranger makes room */
    for (int i = 0; i < d->nlinks; i++) {
      if (d->link[i].inner < 0) {
        close_link(d, i);
        break;
      }
    }
  }
  if (d->nlinks == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 16;
    d->link = realloc(d->link, (size_t)d->cap * sizeof *d->link);
    if (!d->link) {
      tm_say("out of memory");
      exit(1);
    }
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  d->link[d->nlinks++] = (struct link){.outer = fd, .inner = -1};
  d->strangers++;
}

/* srun's connection to libpmix for a task let in, from a port the accept above knows. */
static int open_inner(struct door *d) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in self = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof self;
  int one = 1;
  if (fd < 0 || bind(fd, (struct sockaddr *)&self, sizeof self) < 0 ||
      getsockname(fd, (struct sockaddr *)&self, &len) < 0 || remember(self.sin_port) < 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  if (connect(fd, (struct sockaddr *)&d->inner, sizeof d->inner) < 0) {
    opened_by_door(self.sin_port); /* forgotten: libpmix will not accept it */
    close(fd);
    return -1;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A stranger's handshake, once whole: let in (1) when it names the secret, else not (-1). */
static int judge(struct door *d, struct link *l) {
  if (l->to_inner.len < HEADER_BYTES) return 0;
  uint32_t size;
  memcpy(&size, l->to_inner.p + 8, sizeof size);
  if (size > HANDSHAKE_MAX_BYTES) return -1;
  if (l->to_inner.len < HEADER_BYTES + (size_t)size) return 0;
  if (!memmem(l->to_inner.p + HEADER_BYTES, size, d->secret, d->secret_len)) return -1;
  if (d->relays >= d->max_relays || (l->inner = open_inner(d)) < 0) return -1;
  d->strangers--;
  d->relays++;
  return 1;
}

/* Reads what fd has into b, up to `most` bytes in all: 0 at its end or an error. */
static int take(int fd, struct buffer *b, size_t most) {
  if (b->len >= most) return 1;
  if (b->cap < most) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    if (cap > most) cap = most;
    char *grown = realloc(b->p, cap);
    if (!grown) {
      tm_say("out of memory");
      exit(1);
    }
    b->p = grown;
    b->cap = cap;
  }
  ssize_t n = read(fd, b->p + b->len, b->cap - b->len);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (n == 0) return 0;
  b->len += (size_t)n;
  return 1;
}

/* Writes what b holds to fd, as much as it takes: 0 on an error. */
static int give(int fd, struct buffer *b) {
  if (!b->len) return 1;
  ssize_t n = write(fd, b->p, b->len);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  memmove(b->p, b->p + n, b->len - (size_t)n);
  b->len -= (size_t)n;
  return 1;
}

int door_fds(struct door *d, struct pollfd *fds, int max) {
  int n = 0;
  if (max < 1) return 0;
  fds[n++] = (struct pollfd){.fd = d->listen_fd, .events = POLLIN};
  for (int i = 0; i < d->nlinks && n + 2 <= max; i++) {
    struct link *l = &d->link[i];
    short out = (short)((l->inner < 0 || l->to_inner.len < PIPE_BYTES ? POLLIN : 0) |
                        (l->to_outer.len ? POLLOUT : 0));
    fds[n++] = (struct pollfd){.fd = l->outer, .events = out};
    if (l->inner >= 0) {
      short in = (short)((l->to_outer.len < PIPE_BYTES ? POLLIN : 0) |
                         (l->to_inner.len ? POLLOUT : 0));
      fds[n++] = (struct pollfd){.fd = l->inner, .events = in};
    }
  }
  return n;
}

/* Moves what link i can move; 0 when it has ended (either side closed or failed). */
static int move(struct door *d, int i, int fd, short revents) {
  struct link *l = &d->link[i];
  if (fd == l->outer && (revents & (POLLIN | POLLHUP | POLLERR))) {
    size_t most = l->inner < 0 ? HEADER_BYTES + HANDSHAKE_MAX_BYTES : PIPE_BYTES;
    if (!take(l->outer, &l->to_inner, most)) return 0;
    if (l->inner < 0 && judge(d, l) < 0) return 0;
  }
  if (l->inner >= 0 && fd == l->inner && (revents & (POLLIN | POLLHUP | POLLERR))) {
    if (!take(l->inner, &l->to_outer, PIPE_BYTES)) return 0;
  }
  return (l->inner < 0 || give(l->inner, &l->to_inner)) && give(l->outer, &l->to_outer);
}

void door_serve(struct door *d, const struct pollfd *fds, int n) {
  /* by descriptor, since closing a link moves another into its place */
  for (int f = 1; f < n; f++) {
    if (!fds[f].revents) continue;
    for (int i = 0; i < d->nlinks; i++) {
      if (d->link[i].outer == fds[f].fd || d->link[i].inner == fds[f].fd) {
        if (!move(d, i, fds[f].fd, fds[f].revents)) close_link(d, i);
        break;
      }
    }
  }
  if (n > 0 && (fds[0].revents & POLLIN)) accept_one(d);
}

void door_close(struct door *d) {
  while (d->nlinks > 0) close_link(d, 0);
  close(d->listen_fd);
  free(d->link);
  free(d->secret);
  free(d);
}

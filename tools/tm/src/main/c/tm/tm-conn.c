/*
 * The connection to the task manager and the loop around it. The socket is non-blocking: frames
 * to send wait in one buffer and leave as the socket takes them, while the loop keeps reading,
 * so a task manager busy sending output never deadlocks with a command sending it stdin. Whole
 * frames received are dispatched at once: relayed output straight to stdout or stderr, other
 * answers to the command. Signals reach the loop through a self-pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tm.h"

#define IN_BUFFER (64 << 10) /* grown for a bigger frame, up to TM_MAX_FRAME */

static int signal_pipe[2] = {-1, -1};

int tm_connect(struct tm_conn *c) {
  memset(c, 0, sizeof *c);
  c->fd = -1;
  const char *path = getenv(TM_SOCKET_VARIABLE);
  if (!path || !*path) {
    tm_say("not inside a Berth job (" TM_SOCKET_VARIABLE " is not set)");
    return -1;
  }
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof address.sun_path) {
    tm_say("cannot connect to the job's task manager at %s: the path is too long", path);
    return -1;
  }
  strcpy(address.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) < 0 ||
      fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
    tm_say("cannot connect to the job's task manager at %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  c->fd = fd;
  return 0;
}

/* The connection is over: requests still waiting fail with `why`, or with the refusal's reason. */
static void end(struct tm_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void end(struct tm_conn *c, const char *fmt, ...) {
  if (c->ended) return;
  if (c->refusal) {
    snprintf(c->why, sizeof c->why, "refused: %s", c->refusal);
  } else {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
  }
  close(c->fd);
  c->fd = -1;
  c->ended = 1;
  c->out_start = c->out_len = 0;
}

size_t tm_pending(const struct tm_conn *c) { return c->out_len - c->out_start; }

/* Room for n more bytes at the end of the send buffer; NULL when the connection has ended. */
static unsigned char *reserve(struct tm_conn *c, size_t n) {
  if (c->ended) return NULL;
  if (c->out_start > 0 && c->out_start == c->out_len) c->out_start = c->out_len = 0;
  if (c->out_len + n > c->out_cap) {
    if (c->out_start > 0) {
      memmove(c->out, c->out + c->out_start, c->out_len - c->out_start);
      c->out_len -= c->out_start;
      c->out_start = 0;
    }
    size_t cap = c->out_cap ? c->out_cap : 4096;
    while (c->out_len + n > cap) cap *= 2;
    if (cap != c->out_cap) {
      unsigned char *grown = realloc(c->out, cap);
      if (!grown) {
        end(c, "out of memory");
        return NULL;
      }
      c->out = grown;
      c->out_cap = cap;
    }
  }
  unsigned char *at = c->out + c->out_len;
  c->out_len += n;
  return at;
}

void tm_send_nodes(struct tm_conn *c) {
  unsigned char *p = reserve(c, tm_encode_nodes(NULL, TM_ID(TM_ASK_NODES, 0)));
  if (p) tm_encode_nodes(p, TM_ID(TM_ASK_NODES, 0));
}

void tm_send_spawn(struct tm_conn *c, uint64_t id, const struct tm_spawn *spawn) {
  unsigned char *p = reserve(c, tm_encode_spawn(NULL, id, spawn));
  if (p) tm_encode_spawn(p, id, spawn);
}

void tm_send_wait(struct tm_conn *c, uint64_t id, int32_t task) {
  unsigned char *p = reserve(c, tm_encode_wait(NULL, id, task));
  if (p) tm_encode_wait(p, id, task);
}

void tm_send_signal(struct tm_conn *c, uint64_t id, int32_t task, int32_t signal) {
  unsigned char *p = reserve(c, tm_encode_signal(NULL, id, task, signal));
  if (p) tm_encode_signal(p, id, task, signal);
}

void tm_send_input(struct tm_conn *c, int32_t task, const void *data, size_t n, int eof) {
  uint64_t id = TM_ID(TM_ASK_INPUT, task);
  unsigned char *p = reserve(c, tm_encode_input(NULL, id, task, data, n, eof));
  if (p) tm_encode_input(p, id, task, data, n, eof);
}

void tm_write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= (size_t)w;
    } else if (w < 0 && errno == EAGAIN) {
      poll(&(struct pollfd){.fd = fd, .events = POLLOUT}, 1, -1);
    } else if (w < 0 && errno != EINTR) {
      return;
    }
  }
}

static void dispatch(struct tm_conn *c, const struct tm_response *r) {
  if (r->body == TM_OUTPUT && c->on_output) {
    c->on_output(c->ctx, r);
  } else if (r->body == TM_OUTPUT) {
    tm_write_all(r->stream == 1 ? 1 : 2, r->data.p, r->data.n);
  } else if (!c->on_response(c->ctx, r) && r->body == TM_ERROR && !c->refusal) {
    /* not an answer: the task manager says why it is about to close the connection */
    c->refusal = tm_strdup(r->message);
  }
}

/* A varint at p (at most n bytes): its length in bytes, 0 when incomplete, -1 when too long. */
static int frame_header(const unsigned char *p, size_t n, uint64_t *size) {
  *size = 0;
  for (size_t i = 0; i < n && i < 10; i++) {
    *size |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) return (int)i + 1;
  }
  return n >= 10 ? -1 : 0;
}

/* Dispatches every whole frame received; keeps a partial one, growing the buffer to fit it. */
static void take_frames(struct tm_conn *c) {
  size_t at = 0;
  while (!c->ended) {
    uint64_t size;
    int header = frame_header(c->in + at, c->in_len - at, &size);
    if (header < 0 || size > TM_MAX_FRAME) {
      if (header < 0) end(c, "the task manager sent a malformed frame length");
      else end(c, "the task manager sent a frame of %llu bytes, over the limit of %d",
               (unsigned long long)size, TM_MAX_FRAME);
      return;
    }
    if (header == 0 || c->in_len - at < header + size) break;
    struct tm_response r;
    if (tm_decode_response(c->in + at + header, size, &r) < 0) {
      end(c, "the task manager sent a malformed message");
      return;
    }
    at += header + size;
    dispatch(c, &r);
  }
  if (c->ended) return;
  memmove(c->in, c->in + at, c->in_len - at);
  c->in_len -= at;
  uint64_t size;
  int header = frame_header(c->in, c->in_len, &size);
  if (header > 0 && header + size > c->in_cap) {
    unsigned char *grown = realloc(c->in, header + size);
    if (!grown) {
      end(c, "out of memory");
      return;
    }
    c->in = grown;
    c->in_cap = header + size;
  }
}

static void receive(struct tm_conn *c) {
  if (!c->in) {
    c->in = malloc(IN_BUFFER);
    if (!c->in) {
      end(c, "out of memory");
      return;
    }
    c->in_cap = IN_BUFFER;
  }
  ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
  if (n > 0) {
    c->in_len += (size_t)n;
    take_frames(c);
  } else if (n == 0) {
    end(c, "the task manager closed the connection");
  } else if (errno != EAGAIN && errno != EINTR) {
    end(c, "%s", strerror(errno));
  }
}

static void send_some(struct tm_conn *c) {
  ssize_t n = send(c->fd, c->out + c->out_start, tm_pending(c), MSG_NOSIGNAL);
  if (n >= 0) {
    c->out_start += (size_t)n;
  } else if (errno != EAGAIN && errno != EINTR) {
    int error = errno;
    receive(c); /* the task manager hung up: what it said last (a refusal) is the better reason */
    end(c, "%s", strerror(error));
  }
}

static void caught(int signal) {
  int saved = errno;
  unsigned char byte = (unsigned char)signal;
  if (write(signal_pipe[1], &byte, 1) < 0) {
    /* the pipe is full of signals already: this one is as good as delivered */
  }
  errno = saved;
}

void tm_trap(const int *signals, int n) {
  if (signal_pipe[0] < 0 && pipe2(signal_pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
    tm_say("cannot catch signals: %s", strerror(errno));
    return;
  }
  /* No SA_RESTART: a blocked read of stdin returns, and the loop sees the signal. */
  struct sigaction action = {.sa_handler = caught};
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < n; i++) sigaction(signals[i], &action, NULL);
}

void tm_poll(struct tm_conn *c, struct pollfd *extra, int n_extra) {
  static struct pollfd *fds;
  static int *at;
  static int cap;
  if (n_extra + 2 > cap) { /* grown for the most a caller waits on (srun's PMI connections) */
    free(fds);
    free(at);
    cap = n_extra + 2;
    fds = tm_alloc((size_t)cap * sizeof *fds);
    at = tm_alloc((size_t)cap * sizeof *at);
  }
  int n = 0, conn = -1, sig = -1;
  if (!c->ended) {
    conn = n;
    fds[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN | (tm_pending(c) ? POLLOUT : 0)};
  }
  if (signal_pipe[0] >= 0) {
    sig = n;
    fds[n++] = (struct pollfd){.fd = signal_pipe[0], .events = POLLIN};
  }
  for (int e = 0; e < n_extra; e++) {
    extra[e].revents = 0;
    at[e] = -1;
    if (extra[e].fd >= 0) {
      at[e] = n;
      fds[n++] = extra[e];
    }
  }
  if (n == 0 || poll(fds, (nfds_t)n, -1) <= 0) return;
  if (sig >= 0 && fds[sig].revents) {
    unsigned char signals[64];
    ssize_t got = read(signal_pipe[0], signals, sizeof signals);
    for (ssize_t i = 0; i < got; i++) c->on_signal(c->ctx, signals[i]);
  }
  if (conn >= 0 && !c->ended && (fds[conn].revents & (POLLIN | POLLHUP | POLLERR))) receive(c);
  if (conn >= 0 && !c->ended && tm_pending(c) && (fds[conn].revents & POLLOUT)) send_some(c);
  for (int e = 0; e < n_extra; e++) {
    if (at[e] >= 0) extra[e].revents = fds[at[e]].revents;
  }
}

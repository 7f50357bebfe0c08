/*
 * Finding the server's socket as the Java commands do (ServerLocation): BERTH_SERVER, which may
 * list an active server and its standbys comma separated; else $BERTH_HOME/server.sock; else
 * the system socket if it exists; else ~/.berth/server.sock of the caller's passwd entry. And
 * the frames over it: a varint length, then the message.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd.h"

#define SYSTEM_SOCKET "/run/berth/server.sock"

static int add(struct sockets *s, const char *p, size_t n) {
  char **path = realloc(s->path, (size_t)(s->n + 1) * sizeof *path);
  if (!path) return -1;
  s->path = path;
  s->path[s->n] = strndup(p, n);
  return s->path[s->n++] ? 0 : -1;
}

static int blank(const char *s) {
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

/* `dir` made absolute against the working directory, as Path.toAbsolutePath does. */
static int add_in(struct sockets *s, const char *dir, const char *name) {
  char path[8192];
  char cwd[4096];
  if (dir[0] == '/') snprintf(path, sizeof path, "%s/%s", dir, name);
  else if (getcwd(cwd, sizeof cwd)) snprintf(path, sizeof path, "%s/%s/%s", cwd, dir, name);
  else return -1;
  return add(s, path, strlen(path));
}

int cmd_sockets(struct sockets *s) {
  memset(s, 0, sizeof *s);
  const char *listed = getenv("BERTH_SERVER");
  for (const char *p = listed ? listed : ""; *p;) {
    size_t n = strcspn(p, ",");
    const char *start = p, *end = p + n;
    while (start < end && isspace((unsigned char)*start)) start++;
    while (end > start && isspace((unsigned char)end[-1])) end--;
    if (end > start && add(s, start, (size_t)(end - start)) < 0) return -1;
    p += n + (p[n] == ',');
  }
  if (s->n) return 0;
  const char *home = getenv("BERTH_HOME");
  struct stat st;
  if (!home && stat(SYSTEM_SOCKET, &st) == 0) return add(s, SYSTEM_SOCKET, strlen(SYSTEM_SOCKET));
  if (home && !blank(home)) return add_in(s, home, "server.sock");
  struct passwd *pw = getpwuid(getuid());
  if (!pw || !pw->pw_dir) return -1;
  char path[4096];
  snprintf(path, sizeof path, "%s/.berth/server.sock", pw->pw_dir);
  return add(s, path, strlen(path));
}

static int connect_to(const char *path) {
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof address.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(address.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
    int error = errno;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

int cmd_connect(const struct sockets *s, int last_failed, int *which) {
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < s->n; i++) {
      if ((i == last_failed) != (pass == 1)) continue;
      int fd = connect_to(s->path[i]);
      if (fd >= 0) {
        *which = i;
        return fd;
      }
    }
  }
  return -1;
}

int cmd_send(int fd, const struct buf *frame) {
  for (size_t sent = 0; sent < frame->n;) {
    ssize_t n = send(fd, frame->p + sent, frame->n - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    sent += (size_t)n;
  }
  return 0;
}

static int read_fully(int fd, unsigned char *p, size_t n, char *why, size_t size) {
  while (n) {
    ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      snprintf(why, size, "%s",
               errno == EAGAIN || errno == EWOULDBLOCK ? "no reply in time" : strerror(errno));
      return -1;
    }
    if (got == 0) {
      snprintf(why, size, "the server closed the connection without answering");
      return -1;
    }
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

int cmd_receive(int fd, struct buf *frame, char *why, size_t size) {
  uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    unsigned char byte;
    if (shift > 35) {
      snprintf(why, size, "the server sent a malformed frame");
      return -1;
    }
    if (read_fully(fd, &byte, 1, why, size) < 0) return -1;
    length |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  if (length > CMD_MAX_FRAME) {
    snprintf(why, size, "the server's reply is longer than %u bytes", CMD_MAX_FRAME);
    return -1;
  }
  unsigned char *p = realloc(frame->p, length ? length : 1);
  if (!p) {
    snprintf(why, size, "out of memory");
    return -1;
  }
  frame->p = p;
  frame->cap = length ? length : 1;
  frame->n = length;
  return read_fully(fd, frame->p, length, why, size);
}

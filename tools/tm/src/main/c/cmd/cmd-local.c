/*
 * What berth-cmd reads on its own host for the server: the host's time zone, a submission id,
 * standard input and the files a command names, each with the caller's own permissions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

/*
 * The host's time zone by name, found as the JVM finds its own when TZ is not set (TZ itself
 * goes with the environment): /etc/timezone, else the zoneinfo file /etc/localtime links to.
 * Empty when neither names one (the server then uses UTC, as a JVM does).
 */
void cmd_zone(char *zone, size_t size) {
  zone[0] = 0;
  FILE *f = fopen("/etc/timezone", "re");
  if (f) {
    if (fgets(zone, (int)size, f)) zone[strcspn(zone, " \t\r\n")] = 0;
    fclose(f);
    if (zone[0]) return;
  }
  char link[4096];
  ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
  if (n <= 0) return;
  link[n] = 0;
  const char *at = strstr(link, "zoneinfo/");
  if (at && strlen(at + 9) < size) strcpy(zone, at + 9);
}

/* A random (version 4) UUID, as qsub's Java side makes one. */
int cmd_submission_id(char id[37]) {
  unsigned char r[16];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
  r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
  r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
  snprintf(id, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0],
           r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
           r[15]);
  return 0;
}

/* Reads fd to its end into b, at most CMD_MAX_INPUT bytes; -1 with errno, or E2BIG when longer. */
static int read_all(int fd, struct buf *b) {
  for (;;) {
    if (b->n == b->cap) {
      size_t cap = b->cap ? b->cap * 2 : 1 << 16;
      unsigned char *p = realloc(b->p, cap);
      if (!p) return -1;
      b->p = p;
      b->cap = cap;
    }
    ssize_t got = read(fd, b->p + b->n, b->cap - b->n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) return 0;
    b->n += (size_t)got;
    if (b->n > CMD_MAX_INPUT) {
      errno = E2BIG;
      return -1;
    }
  }
}

int cmd_read_stdin(struct run *run) {
  run->stdin_given = 1;
  run->stdin_bytes.n = 0;
  return read_all(0, &run->stdin_bytes);
}

/* `path` with repeated slashes made one and no trailing slash, as a Java Path prints it. */
static void squeeze_slashes(char *path) {
  char *out = path;
  for (const char *in = path; *in; in++)
    if (!(*in == '/' && out > path && out[-1] == '/')) *out++ = *in;
  if (out > path + 1 && out[-1] == '/') out--;
  *out = 0;
}

/* `arg` as an absolute path: relative to the run's cwd, its slashes squeezed. */
static void absolute(const struct run *run, const char *arg, char *path, size_t size) {
  if (arg[0] == '/') snprintf(path, size, "%s", arg);
  else snprintf(path, size, "%s/%s", run->cwd, arg);
  squeeze_slashes(path);
}

/*
 * Whether the command line names `path` (absolute, as the server asks for it): the client reads
 * only what its caller named, whatever a server at the other end of the socket asks for.
 */
static int named(const struct run *run, const char *path) {
  char candidate[8192];
  for (int i = 0; i < run->nargs; i++) {
    if (!*run->args[i]) continue;
    absolute(run, run->args[i], candidate, sizeof candidate);
    if (!strcmp(candidate, path)) return 1;
  }
  return 0;
}

/* The server names a file by its absolute path; the client reads it as the caller. */
int cmd_read_file(struct run *run, struct pb_bytes path) {
  for (int i = 0; i < run->nfiles; i++) /* sent already, before the server asked */
    if (strlen(run->files[i].path) == path.n && !memcmp(run->files[i].path, path.p, path.n))
      return 0;
  struct local_file *files = realloc(run->files, (size_t)(run->nfiles + 1) * sizeof *files);
  if (!files) return -1;
  run->files = files;
  struct local_file *f = &files[run->nfiles++];
  memset(f, 0, sizeof *f);
  f->path = strndup(path.p, path.n);
  if (!f->path) return -1;
  if (strlen(f->path) != path.n || !named(run, f->path)) {
    f->problem = FILE_OTHER;
    f->reason = "not a file named on the command line";
    return 0;
  }
  struct stat st;
  if (stat(f->path, &st) == 0 && S_ISDIR(st.st_mode)) {
    f->problem = FILE_DIRECTORY;
    return 0;
  }
  int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0 && read_all(fd, &f->content) == 0) {
    close(fd);
    return 0;
  }
  int error = errno;
  if (fd >= 0) close(fd);
  buf_free(&f->content);
  switch (error) {
  case ENOENT:
    f->problem = FILE_MISSING;
    break;
  case EACCES:
  case EPERM:
    f->problem = FILE_DENIED;
    break;
  case EISDIR:
    f->problem = FILE_DIRECTORY;
    break;
  case E2BIG:
    f->problem = FILE_OTHER;
    f->reason = "larger than berth-cmd sends (8 MiB)";
    break;
  default:
    f->problem = FILE_OTHER;
    f->reason = strerror(error);
  }
  return 0;
}

int cmd_read_named(struct run *run, const char *arg) {
  char path[8192];
  absolute(run, arg, path, sizeof path);
  return cmd_read_file(run, (struct pb_bytes){path, strlen(path)});
}

/*
 * What the server may learn of a path the command names (qsub: a container image, a mount
 * source, the directory of the job's output), looked at as the caller: whether it exists, whether
 * the caller can read it (a directory: list and enter), whether they may write it (a directory:
 * make files in it), its size, and the first bytes of a file only when they are a
 * squashfs superblock, so that no other content leaves this host.
 */
int cmd_probe_file(struct run *run, struct pb_bytes path) {
  struct local_file *probes = realloc(run->probes, (size_t)(run->nprobes + 1) * sizeof *probes);
  if (!probes) return -1;
  run->probes = probes;
  struct local_file *f = &probes[run->nprobes++];
  memset(f, 0, sizeof *f);
  f->path = strndup(path.p, path.n);
  if (!f->path) return -1;
  struct stat st;
  if (strlen(f->path) != path.n || f->path[0] != '/') {
    f->problem = FILE_OTHER;
    f->reason = "not an absolute path";
  } else if (stat(f->path, &st) < 0) {
    f->problem = errno == ENOENT || errno == ENOTDIR ? FILE_MISSING
                 : errno == EACCES                   ? FILE_DENIED
                                                     : FILE_OTHER;
    f->reason = strerror(errno);
  } else if (S_ISDIR(st.st_mode)) {
    f->problem = access(f->path, R_OK | X_OK) == 0 ? FILE_DIRECTORY : FILE_DENIED;
    f->writable = access(f->path, W_OK | X_OK) == 0;
  } else if (!S_ISREG(st.st_mode)) {
    f->problem = FILE_OTHER;
    f->reason = "not a regular file";
    f->writable = access(f->path, W_OK) == 0; /* /dev/null, say */
  } else {
    f->writable = access(f->path, W_OK) == 0;
    /* non-blocking: a FIFO put in its place since the stat must not hang the client */
    int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    unsigned char head[96];
    if (fd < 0) {
      f->problem = errno == EACCES ? FILE_DENIED : FILE_OTHER;
      f->reason = strerror(errno);
      return 0;
    }
    ssize_t got = pread(fd, head, sizeof head, 0);
    close(fd);
    f->size = (long long)st.st_size;
    if (got == (ssize_t)sizeof head && memcmp(head, "hsqs", 4) == 0) {
      f->content.p = malloc(sizeof head);
      if (!f->content.p) return -1;
      memcpy(f->content.p, head, sizeof head);
      f->content.n = f->content.cap = sizeof head;
    }
  }
  return 0;
}

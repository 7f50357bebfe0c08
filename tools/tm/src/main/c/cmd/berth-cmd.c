/*
 * berth-cmd COMMAND [ARGS...], or any name of a command linked to it: see cmd.h. With
 * BERTH_CLI=java it runs the Java command itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

/* The commands the server runs; any other name goes to the Java commands as it is. */
static const char *const HOSTED[] = {"qsub",     "qalter",   "qstat",   "qdel",     "qhold",
                                     "qrls",     "qsig",     "qselect", "qrun",     "qrerun",
                                     "qmove",    "qorder",   "qchkpt",  "momctl",   "qmgr",
                                     "pbsnodes", "tracejob", "pbsfs",   "pbs_rsub", "pbs_rstat",
                                     "pbs_rdel", "sbatch",   "squeue",  "scancel", "sacct",
                                     "sinfo",    "scontrol", "sprio",   "sshare",  NULL};

/* Error.Code values the client acts on. */
enum { UNKNOWN_REQUEST = 15005, SERVER_DOWN = 15062 };

/* Exit statuses when the server cannot be reached: qmgr's is Torque's 3, the others' 1. */
static int unavailable_status(const char *name) { return strcmp(name, "qmgr") ? 1 : 3; }

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int hosted(const char *name) {
  for (const char *const *h = HOSTED; *h; h++)
    if (!strcmp(*h, name)) return 1;
  return 0;
}

/*
 * Runs the Java command instead: berth-java beside this program's installed bin directory
 * (libexec/../bin) or in the checkout it was built in (tools/tm/target/native/../../../../ops/bin).
 */
static void __attribute__((noreturn)) run_java(const char *name, char **args, int nargs) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    *strrchr(self, '/') = 0;
    static const char *const places[] = {"/../bin/berth-java", "/../../../../ops/bin/berth-java"};
    for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
      char launcher[PATH_MAX + 64];
      snprintf(launcher, sizeof launcher, "%s%s", self, places[i]);
      if (access(launcher, X_OK) != 0) continue;
      char **argv = calloc((size_t)nargs + 3, sizeof *argv);
      if (!argv) break;
      argv[0] = launcher;
      argv[1] = (char *)name;
      memcpy(argv + 2, args, (size_t)nargs * sizeof *argv);
      execv(launcher, argv);
      fprintf(stderr, "%s: cannot run %s: %s\n", name, launcher, strerror(errno));
      exit(1);
    }
  }
  fprintf(stderr, "%s: cannot find the Java commands (berth-java) next to %s\n", name,
          n > 0 ? self : "this program");
  exit(1);
}

/* Commands whose request may be sent again after a broken connection (the relay's rule too). */
static int repeatable(const struct run *run) {
  return !strcmp(run->name, "qstat") || !strcmp(run->name, "tracejob") ||
         !strcmp(run->name, "pbsfs") || !strcmp(run->name, "pbs_rstat") ||
         !strcmp(run->name, "squeue") || !strcmp(run->name, "sacct") ||
         !strcmp(run->name, "sinfo") || !strcmp(run->name, "sprio") ||
         !strcmp(run->name, "sshare") ||
         !strcmp(run->name, "qsub") || !strcmp(run->name, "sbatch");
}

/*
 * Whether `s` is UTF-8, which protobuf's strings must be: a command line that is not goes to the
 * Java command, which reads it as it always has.
 */
static int utf8(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
    if (extra < 0 || (extra == 1 && *p < 0xc2)) return 0;
    p++;
    for (int i = 0; i < extra; i++, p++)
      if ((*p & 0xc0) != 0x80) return 0;
  }
  return 1;
}

extern char **environ;

/* Whether everything the request would carry is UTF-8 (the whole environment, once asked for). */
static int sendable(const struct run *run) {
  if (!utf8(run->cwd)) return 0;
  for (int i = 0; i < run->nargs; i++)
    if (!utf8(run->args[i])) return 0;
  for (char **e = environ; *e; e++)
    if (!utf8(*e)) return 0;
  return 1;
}

/* Descriptors 0-2 that are closed are opened on /dev/null, so that the socket is not one of them. */
static void standard_descriptors(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int opened = open("/dev/null", O_RDWR);
      if (opened >= 0 && opened != fd) close(opened);
    }
  }
}

static long seconds_from(const char *variable, long otherwise) {
  const char *value = getenv(variable);
  char *end;
  if (!value) return otherwise;
  long v = strtol(value, &end, 10);
  while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  return end != value && !*end ? v : otherwise;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int write_output(int is_stderr, struct pb_bytes data) {
  int fd = is_stderr ? 2 : 1;
  for (size_t done = 0; done < data.n;) {
    ssize_t n = write(fd, data.p + done, data.n - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return 0; /* a closed pipe: the Java command goes on too, and says nothing */
    done += (size_t)n;
  }
  return 0;
}

/* The connection broke before the reply: as the Java commands report it. */
static void __attribute__((noreturn)) broken(const struct run *run, const char *socket,
                                            const char *why) {
  fprintf(stderr,
          "%s: cannot talk to the Berth server at %s: %s (is it running? start it with `berth "
          "up`, or set BERTH_SERVER)\n",
          run->name, socket, why);
  if (!strcmp(run->name, "qsub") || !strcmp(run->name, "sbatch"))
    fprintf(stderr,
            "%s: the job may have been submitted (submission id %s); check with qstat before "
            "submitting it again\n",
            run->name, run->submission_id);
  exit(unavailable_status(run->name));
}

struct session {
  struct sockets sockets;
  int fd, which;
  double reply_timeout; /* with standbys listed; 0: none */
};

/*
 * Sends the request and reads its reply. When the connection breaks (or a server steps down)
 * and standbys are listed, a request that may be sent twice goes to the next server that
 * answers, for up to BERTH_FAILOVER_WAIT seconds, as the Java commands do.
 */
static void exchange(struct session *s, const struct run *run, uint64_t id, struct buf *reply,
                     struct reply *r) {
  struct buf frame = {0};
  cmd_encode(&frame, id, run);
  int retry = s->sockets.n > 1 && repeatable(run);
  double deadline = 0; /* set at the first failure: a takeover is waited out from then on */
  char why[256];
  for (;;) {
    int failed = s->which;
    if (s->fd >= 0 && cmd_send(s->fd, &frame) < 0) {
      snprintf(why, sizeof why, "%s", strerror(errno));
    } else if (s->fd >= 0 && cmd_receive(s->fd, reply, why, sizeof why) == 0) {
      if (cmd_decode(reply->p, reply->n, r) < 0 || r->id != id) {
        snprintf(why, sizeof why, "the server's reply does not answer request %llu",
                 (unsigned long long)id);
      } else if (r->has_error && r->error_code == SERVER_DOWN && retry) {
        snprintf(why, sizeof why, "the server is stepping down");
      } else {
        buf_free(&frame);
        return;
      }
    }
    if (deadline == 0) deadline = now() + (double)seconds_from("BERTH_FAILOVER_WAIT", 30);
    if (!retry || now() >= deadline) broken(run, s->sockets.path[failed], why);
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    while ((s->fd = cmd_connect(&s->sockets, failed, &s->which)) < 0 && now() < deadline)
      usleep(200 * 1000);
    if (s->fd < 0) broken(run, s->sockets.path[failed], why);
    if (s->reply_timeout > 0) {
      struct timeval t = {(time_t)s->reply_timeout, 0};
      setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
    }
  }
}

int main(int argc, char **argv) {
  const char *name = base_name(argv[0]);
  char **args = argv + 1;
  int nargs = argc - 1;
  if (!strcmp(name, "berth-cmd")) {
    if (argc < 2) {
      fputs("usage: berth-cmd COMMAND [ARGS...]\n", stderr);
      return 2;
    }
    name = argv[1];
    args++;
    nargs--;
  }
  const char *cli = getenv("BERTH_CLI");
  if (!hosted(name) || (cli && !strcmp(cli, "java"))) run_java(name, args, nargs);
  standard_descriptors();
  signal(SIGPIPE, SIG_IGN);

  struct run run = {.name = name, .args = args, .nargs = nargs};
  struct session s = {.fd = -1, .which = -1};
  if (!getcwd(run.cwd, sizeof run.cwd) || !sendable(&run) || cmd_sockets(&s.sockets) < 0 ||
      cmd_submission_id(run.submission_id) < 0)
    run_java(name, args, nargs);
  /* No server answering: the Java command waits out a takeover and reports it in its words. */
  s.fd = cmd_connect(&s.sockets, -1, &s.which);
  if (s.fd < 0) run_java(name, args, nargs);
  if (s.sockets.n > 1) {
    s.reply_timeout = (double)seconds_from("BERTH_REPLY_TIMEOUT", 60);
    struct timeval t = {(time_t)s.reply_timeout, 0};
    setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
  }
  cmd_zone(run.zone, sizeof run.zone);
  if (!utf8(run.zone)) run.zone[0] = 0;
  run.terminal = isatty(0) && isatty(1);
  const char *script = strcmp(name, "qsub") ? NULL : cmd_qsub_script(&run);
  if (script && cmd_read_named(&run, script) < 0) {
    fprintf(stderr, "%s: out of memory reading %s\n", name, script);
    return 1;
  }
  /* qsub checks that its working directory takes the job's output (OutputChecks): its probe
   * goes with the first request too, so that a plain qsub stays one round trip */
  if (!strcmp(name, "qsub") &&
      cmd_probe_file(&run, (struct pb_bytes){run.cwd, strlen(run.cwd)}) < 0) {
    fprintf(stderr, "%s: out of memory\n", name);
    return 1;
  }

  struct buf frame = {0};
  struct reply r;
  /* a few rounds for what the server needs; squeue -i's rounds start the count again */
  for (uint64_t id = 1, round = 1; round <= 6; id++, round++) {
    exchange(&s, &run, id, &frame, &r);
    if (r.has_error) {
      if (r.error_code == UNKNOWN_REQUEST) { /* a server that runs no commands */
        close(s.fd);
        run_java(name, args, nargs);
      }
      fprintf(stderr, "%s: %.*s\n", name, (int)r.error_message.n, r.error_message.p);
      return 1;
    }
    if (!r.has_command) break;
    if (!r.has_needs) {
      cmd_each_output(&r, write_output);
      if (r.repeat_after <= 0) return r.exit_status;
      sleep((unsigned)r.repeat_after); /* until a signal ends it, as Slurm's squeue -i */
      round = 0;
      continue;
    }
    if (r.needs_interaction) {
      close(s.fd);
      run_java(name, args, nargs);
    }
    if (r.needs_environment) run.whole_environment = 1;
    if (r.needs_stdin && cmd_read_stdin(&run) < 0) {
      fprintf(stderr, "%s: cannot read standard input: %s\n", name,
              errno == E2BIG ? "it is larger than berth-cmd sends (8 MiB)" : strerror(errno));
      return 2;
    }
    if (cmd_each_needed(&r, NEEDS_FILES, cmd_read_file, &run) < 0 ||
        cmd_each_needed(&r, NEEDS_PROBES, cmd_probe_file, &run) < 0) {
      fprintf(stderr, "%s: cannot take in the files the server asks for\n", name);
      return 1;
    }
  }
  fprintf(stderr, "%s: the server's reply to the command makes no sense\n", name);
  return 1;
}

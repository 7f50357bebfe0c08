/*
 * berth-starter: starts one job process for the Berth mom and reports exactly how it ended.
 *
 * It runs as root, makes a new session, joins the given cgroups (so everything it starts is
 * inside them before any user code runs), reads its input from the mom, forks, and in the child
 * drops to the job owner's uid, gid and groups, opens the output files as that user, changes to
 * the working directory and execs the program. The script reaches the program as a file argument,
 * a private in-memory copy named /dev/fd/N, and stdin is /dev/null: a script fed on stdin would
 * be eaten by the first command that reads stdin (mpirun forwards its stdin to rank 0), ending the
 * job after that line. The parent waits for the child and writes one status line: "exit CODE",
 * "signal SIG" or "failed MESSAGE", followed by the child's CPU time and peak memory. The mom
 * reads that file, so a job's exit status stays exact (256 + signal when the job was killed by a
 * signal) and survives a mom restart: the starter outlives the mom and the file outlives both.
 *
 * The input comes first on stdin: a line "ENV_BYTES SCRIPT_BYTES" (SCRIPT_BYTES -1 for no
 * script), then the job's environment as NUL-separated NAME=VALUE entries, then the script.
 * Whatever follows is the program's stdin when there is no script (a task's input, or what cat
 * writes to a user's file). The environment, which the job's owner controls (LD_PRELOAD and the
 * like must never reach a root process), is installed only in the child, after the privileges are
 * dropped; the starter itself runs with a minimal environment of the mom's. Nothing of a job's
 * start is a file of its own: each file made and removed per job costs inode work on the node's
 * file system, the more the more jobs a second it ends.
 *
 * Output files are opened for appending, so that task output the mom adds to a job's files
 * while the job script writes to them lands after what is there; --append also keeps what the
 * file held (for tasks), otherwise it is truncated first. Without --stdout or --stderr
 * the process keeps the starter's own (the mom passes pipes for tasks whose output it relays).
 * --search-path looks the program up in the PATH of the job's environment, as a shell would;
 * --hostname gives the process a UTS namespace of its own with that host name (several nodes on
 * one machine, for tests and demonstrations). --jobid with --jobid-file writes the job id to that
 * file once the new session exists, before anything of the job runs: Lustre's per-session job id.
 *
 * With --container-image or --container-named the process enters its container image after
 * dropping root and opening its output files (berth-container.c); the program and the working
 * directory are then the container's.
 *
 * --limit NAME=VALUE sets a resource limit of the program, soft and hard alike (cpu seconds,
 * whose hard limit is a second more, so that SIGXCPU comes before SIGKILL; fsize, as and rss
 * bytes: Torque's pcput, file, pvmem or vmem, and pmem), and --nice N its nice
 * value (0 to 19), right before the exec, as the owner and inside the container if there is one:
 * the job sees them with ulimit and cannot raise them, and every process it starts inherits them.
 *
 * --terminal runs the program on a pseudo-terminal, PATH its slave, whose master the mom holds
 * (an interactive job, qsub -I). The starter, as the leader of the new session, takes PATH as the
 * session's controlling terminal and hands it to the job's owner as grantpt would (owner, the tty
 * group, mode 0620); the child makes its process group the terminal's foreground group (Ctrl-C and
 * SIGWINCH reach it) and has the terminal as stdin, stdout and stderr. The job stays in the
 * starter's session, where the mom signals and counts its processes and --jobid tags it; a hangup
 * reaches only the starter, which ignores it: the mom ends a job whose user went away. It takes no
 * script and no --stdout, --stderr or --join.
 *
 * Usage: berth-starter [--uid N --gid N [--groups G,G...]] [--cwd DIR]
 *          [--stdout FILE] [--stderr FILE | --join] [--terminal PATH] [--append] [--umask OCTAL]
 *          [--cgroup PROCS_FILE]... [--hostname NAME] [--search-path]
 *          [--jobid ID --jobid-file FILE] [--limit cpu|fsize|as|rss=N]... [--nice N]
 *          [--container-image FILE] [--container-cache DIR] [--container-named DIR]
 *          [--container-scratch DIR] [--container-workdir DIR] [--container-writable]
 *          [--container-remap-root] [--container-mount SRC:DST[:ro]]... [--container-env NAME]...
 *          [--container-bind PATH]... [--container-device FILE]...
 *          --status FILE [--argv0 NAME] -- PROGRAM [ARG...]  < INPUT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "berth-container.h"

#define MAX_CGROUPS 16
#define MAX_LIMITS 4
#define MAX_GROUPS 256
#define EXIT_SETUP 250

struct options {
  long uid, gid;
  gid_t groups[MAX_GROUPS];
  int ngroups;
  const char *cwd, *out, *err, *status, *argv0, *hostname, *jobid, *jobid_file, *terminal;
  const char *cgroups[MAX_CGROUPS];
  int ncgroups;
  int join, append, search_path;
  long umask_value;
  struct { int resource; const char *name; rlim_t value; } limits[MAX_LIMITS];
  int nlimits;
  long nice_value;
  struct container container;
  char **program;
};

static const char *status_path;

static void write_status(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (!status_path) {
    fprintf(stderr, "berth-starter: %s\n", line);
    return;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", status_path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "berth-starter: cannot write %s: %s\n", tmp, strerror(errno));
    return;
  }
  dprintf(fd, "%s\n", line);
  fsync(fd);
  close(fd);
  rename(tmp, status_path);
}

static void fail(const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  write_status("failed %s", msg);
  exit(EXIT_SETUP);
}

static long number(const char *flag, const char *text, int base) {
  char *end;
  errno = 0;
  long n = strtol(text, &end, base);
  if (errno || *end || n < 0) fail("bad value for %s: %s", flag, text);
  return n;
}

static void parse_groups(struct options *o, const char *text) {
  char *copy = strdup(text), *save = NULL;
  for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
    if (o->ngroups == MAX_GROUPS) fail("too many groups");
    o->groups[o->ngroups++] = (gid_t)number("--groups", g, 10);
  }
  free(copy);
}

/* --limit NAME=VALUE: one of the limits the mom sets for Torque's resources. */
static void parse_limit(struct options *o, const char *text) {
  static const struct { const char *name; int resource; } known[] = {
      {"cpu", RLIMIT_CPU}, {"fsize", RLIMIT_FSIZE}, {"as", RLIMIT_AS}, {"rss", RLIMIT_RSS}};
  const char *equals = strchr(text, '=');
  if (!equals) fail("bad value for --limit: %s", text);
  for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
    if (strlen(known[k].name) == (size_t)(equals - text) &&
        !strncmp(text, known[k].name, (size_t)(equals - text))) {
      if (o->nlimits == MAX_LIMITS) fail("too many limits");
      o->limits[o->nlimits].resource = known[k].resource;
      o->limits[o->nlimits].name = known[k].name;
      o->limits[o->nlimits++].value = (rlim_t)number("--limit", equals + 1, 10);
      return;
    }
  }
  fail("unknown limit in --limit %s", text);
}

static void parse(int argc, char **argv, struct options *o) {
  memset(o, 0, sizeof *o);
  o->uid = o->gid = o->umask_value = o->nice_value = -1;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--")) { i++; break; }
    if (!strcmp(a, "--join")) { o->join = 1; continue; }
    if (!strcmp(a, "--append")) { o->append = 1; continue; }
    if (!strcmp(a, "--search-path")) { o->search_path = 1; continue; }
    if (!strcmp(a, "--container-writable")) { o->container.writable = 1; continue; }
    if (!strcmp(a, "--container-remap-root")) { o->container.remap_root = 1; continue; }
    if (!v) fail("option %s needs a value", a);
    i++;
    char error[512];
    int taken = container_option(&o->container, a, v, error, sizeof error);
    if (taken < 0) fail("%s", error);
    if (taken) continue;
    if (!strcmp(a, "--uid")) o->uid = number(a, v, 10);
    else if (!strcmp(a, "--gid")) o->gid = number(a, v, 10);
    else if (!strcmp(a, "--groups")) parse_groups(o, v);
    else if (!strcmp(a, "--cwd")) o->cwd = v;
    else if (!strcmp(a, "--stdout")) o->out = v;
    else if (!strcmp(a, "--stderr")) o->err = v;
    else if (!strcmp(a, "--status")) o->status = status_path = v; /* later errors go there */
    else if (!strcmp(a, "--argv0")) o->argv0 = v;
    else if (!strcmp(a, "--hostname")) o->hostname = v;
    else if (!strcmp(a, "--jobid")) o->jobid = v;
    else if (!strcmp(a, "--jobid-file")) o->jobid_file = v;
    else if (!strcmp(a, "--terminal")) o->terminal = v;
    else if (!strcmp(a, "--umask")) o->umask_value = number(a, v, 8);
    else if (!strcmp(a, "--limit")) parse_limit(o, v);
    else if (!strcmp(a, "--nice")) {
      o->nice_value = number(a, v, 10);
      if (o->nice_value > 19) fail("bad value for --nice: %s (0 to 19)", v);
    }
    else if (!strcmp(a, "--cgroup")) {
      if (o->ncgroups == MAX_CGROUPS) fail("too many cgroups");
      o->cgroups[o->ncgroups++] = v;
    } else fail("unknown option %s", a);
  }
  if (i >= argc) fail("no program given");
  if ((o->uid < 0) != (o->gid < 0)) fail("--uid and --gid go together");
  if (!o->jobid != !o->jobid_file) fail("--jobid and --jobid-file go together");
  if (o->terminal && (o->out || o->err || o->join))
    fail("--terminal is the program's output: it excludes --stdout, --stderr and --join");
  o->program = argv + i;
}

/* The mom's input on stdin: what the job runs with. */
struct input {
  char **envp;   /* NULL-terminated */
  char *script;  /* NULL when there is none */
  size_t script_size;
};

/* The mom's input is never this large; a bigger count is a damaged header, not a job. */
#define MAX_INPUT ((long)1 << 30)

/* Exactly n bytes of stdin; fewer means the mom's input was cut short. */
static void read_exactly(char *buffer, size_t n) {
  size_t have = 0;
  while (have < n) {
    ssize_t got = read(0, buffer + have, n - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) fail("the mom's input ended after %zu of %zu bytes", have, n);
    have += (size_t)got;
  }
}

/* Reads the header byte by byte, so that nothing after the input is taken from the program. */
static void read_input(struct input *in) {
  char header[64];
  size_t n = 0;
  for (;;) {
    if (n == sizeof header - 1) fail("the mom's input has no header line");
    read_exactly(header + n, 1);
    if (header[n] == '\n') break;
    n++;
  }
  header[n] = 0;
  long env_size, script_size;
  char end;
  if (sscanf(header, "%ld %ld%c", &env_size, &script_size, &end) != 2 || env_size < 0 ||
      env_size > MAX_INPUT || script_size < -1 || script_size > MAX_INPUT)
    fail("the mom's input header '%s' is malformed", header);
  char *text = malloc((size_t)env_size + 1);
  if (!text) fail("no memory for the environment");
  read_exactly(text, (size_t)env_size);
  text[env_size] = 0;
  size_t count = 0;
  for (long i = 0; i < env_size; i++) count += text[i] == 0;
  in->envp = calloc(count + 1, sizeof *in->envp);
  if (!in->envp) fail("no memory for the environment");
  size_t k = 0;
  for (long i = 0; i < env_size && k < count; i += (long)strlen(text + i) + 1)
    in->envp[k++] = text + i;
  in->envp[k] = NULL;
  in->script = NULL;
  in->script_size = 0;
  if (script_size >= 0) {
    in->script = malloc((size_t)script_size + 1);
    if (!in->script) fail("no memory for the job script");
    read_exactly(in->script, (size_t)script_size);
    in->script_size = (size_t)script_size;
  }
}

static void join_cgroups(const struct options *o) {
  for (int i = 0; i < o->ncgroups; i++) {
    int fd = open(o->cgroups[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open %s: %s", o->cgroups[i], strerror(errno));
    if (dprintf(fd, "%d\n", (int)getpid()) < 0) {
      int e = errno;
      close(fd);
      fail("cannot join %s: %s", o->cgroups[i], strerror(e));
    }
    close(fd);
  }
}

/* In the child: report a setup failure through the pipe and stop. */
static void child_fail(int pipe_fd, const char *what, const char *path) {
  dprintf(pipe_fd, "%s %s: %s", what, path ? path : "", strerror(errno));
  _exit(EXIT_SETUP);
}

static int open_output(const char *path, int append) {
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (append ? 0 : O_TRUNC);
  return open(path, flags, 0644);
}

/* Why the session could not be tagged with its job id, for the job's stderr; empty if it was. */
static char tag_error[600];

/*
 * Tags the new session with the job id where a parallel file system keeps one per session
 * (Lustre's /sys/fs/lustre/jobid_this_session, read with jobid_var=session): every process of
 * the session then carries it, whatever it does to its environment. The file is the
 * administrator's, written as root; a failure costs the job nothing but the tag.
 */
static void tag_session(const char *file, const char *jobid) {
  int fd = open(file, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  int e = errno;
  if (fd >= 0) {
    char line[300]; /* Lustre takes the id up to a newline; a stand-in file gets a line each */
    int n = snprintf(line, sizeof line, "%s\n", jobid);
    if (n < 0 || (size_t)n >= sizeof line) n = 0;
    ssize_t w = n ? write(fd, line, (size_t)n) : -1;
    e = n ? errno : ENAMETOOLONG;
    close(fd);
    if (n && w == (ssize_t)n) return;
    if (w >= 0) e = EIO;
  }
  snprintf(tag_error, sizeof tag_error, "cannot tag the session with job id %s in %s: %s",
           jobid, file, strerror(e));
}

static void own_hostname(const char *name) {
  if (unshare(CLONE_NEWUTS) < 0) fail("cannot make a UTS namespace: %s", strerror(errno));
  if (sethostname(name, strlen(name)) < 0) fail("cannot set the host name %s: %s", name, strerror(errno));
}

/* A copy of the script the owner can read, as /dev/fd/N; stdin becomes /dev/null. */
static void script_copy(const struct input *in, int pipe_fd, char *path, size_t size) {
  int copy = memfd_create("job-script", 0); /* no close-on-exec: the shell opens it by name */
  if (copy < 0) child_fail(pipe_fd, "cannot copy the job script", NULL);
  for (size_t done = 0; done < in->script_size;) {
    ssize_t w = write(copy, in->script + done, in->script_size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) child_fail(pipe_fd, "cannot copy the job script", NULL);
    done += (size_t)w;
  }
  snprintf(path, size, "/dev/fd/%d", copy);
  int null = open("/dev/null", O_RDONLY);
  if (null < 0 || dup2(null, 0) < 0) child_fail(pipe_fd, "cannot open /dev/null", NULL);
  if (null != 0) close(null);
}

/*
 * The tty group from /etc/group, or -1 (then the terminal keeps its group). The starter is static
 * and uses no NSS; tty is a system group, always a local one.
 */
static gid_t tty_group(void) {
  FILE *groups = fopen("/etc/group", "re");
  if (!groups) return (gid_t)-1;
  gid_t gid = (gid_t)-1;
  struct group *g;
  while ((g = fgetgrent(groups)) != NULL) {
    if (!strcmp(g->gr_name, "tty")) {
      gid = g->gr_gid;
      break;
    }
  }
  fclose(groups);
  return gid;
}

/*
 * In the starter, as root and leader of the new session: the terminal becomes the session's
 * controlling terminal and the job owner's. Returns its descriptor, for the child.
 */
static int take_terminal(const struct options *o) {
  int fd = open(o->terminal, O_RDWR | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail("cannot open the terminal %s: %s", o->terminal, strerror(errno));
  if (ioctl(fd, TIOCSCTTY, 0) < 0) fail("cannot take the terminal %s: %s", o->terminal, strerror(errno));
  /* root's until now: the owner's programs reopen it by its name (screen, gpg's pinentry) */
  if (fchown(fd, o->uid >= 0 ? (uid_t)o->uid : (uid_t)-1, tty_group()) < 0 || fchmod(fd, 0620) < 0)
    fail("cannot give the terminal %s to the job's owner: %s", o->terminal, strerror(errno));
  return fd;
}

/*
 * In the child: its process group (the job's) in the terminal's foreground, and the terminal as
 * stdin, stdout and stderr. A process outside the foreground that sets it is sent SIGTTOU unless it
 * ignores that, so it does for the moment.
 */
static void use_terminal(int fd, int pipe_fd) {
  signal(SIGTTOU, SIG_IGN);
  if (tcsetpgrp(fd, getpid()) < 0) child_fail(pipe_fd, "cannot take the terminal's foreground", NULL);
  signal(SIGTTOU, SIG_DFL);
  for (int i = 0; i < 3; i++) {
    if (dup2(fd, i) < 0) child_fail(pipe_fd, "cannot make the terminal stdin and output", NULL);
  }
  if (fd > 2) close(fd);
}

extern char **environ;

/*
 * Every signal back to its default and none blocked: a mom started from a shell's background job
 * inherits SIGINT and SIGQUIT ignored, and an ignored signal stays ignored across exec, so a job
 * (an interactive one's Ctrl-C above all) would inherit that too.
 */
static void default_signals(void) {
  for (int sig = 1; sig < NSIG; sig++) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * The job's limits, last before the exec: as the owner (lowering a limit or raising the nice value
 * needs no privilege) and after the container is entered, whose setup they must not hinder.
 */
static void apply_limits(const struct options *o, int pipe_fd) {
  for (int i = 0; i < o->nlimits; i++) {
    struct rlimit limit = {o->limits[i].value, o->limits[i].value};
    /* The kernel kills at the hard CPU limit before it warns at the soft one when they are equal:
     * a second more makes a process over its CPU time end with SIGXCPU, which says why. */
    if (o->limits[i].resource == RLIMIT_CPU) limit.rlim_max = limit.rlim_cur + 1;
    struct rlimit now;
    if (getrlimit(o->limits[i].resource, &now) == 0 && now.rlim_max != RLIM_INFINITY &&
        now.rlim_max < limit.rlim_max)
      limit.rlim_cur = limit.rlim_max = now.rlim_max; /* already lower: kept */
    if (setrlimit(o->limits[i].resource, &limit) < 0)
      child_fail(pipe_fd, "cannot set the limit", o->limits[i].name);
  }
  if (o->nice_value >= 0) {
    errno = 0;
    int now = getpriority(PRIO_PROCESS, 0);
    /* a mom that runs niced already passes at least its own value on */
    if ((errno || o->nice_value > now) && setpriority(PRIO_PROCESS, 0, (int)o->nice_value) < 0)
      child_fail(pipe_fd, "cannot set the nice value", NULL);
  }
}

static void child(const struct options *o, const struct input *in, int pipe_fd, int terminal) {
  setpgid(0, 0); /* the job gets its own process group: signals to it spare the starter */
  default_signals();
  if (terminal >= 0) use_terminal(terminal, pipe_fd);
  if (o->uid >= 0) {
    if (setgroups(o->ngroups, o->groups) < 0) child_fail(pipe_fd, "setgroups", NULL);
    if (setgid((gid_t)o->gid) < 0) child_fail(pipe_fd, "setgid", NULL);
    if (setuid((uid_t)o->uid) < 0) child_fail(pipe_fd, "setuid", NULL);
    if (o->uid != 0 && (setuid(0) == 0 || geteuid() == 0)) {
      errno = EPERM;
      child_fail(pipe_fd, "could regain root after dropping privileges", NULL);
    }
  }
  environ = in->envp; /* only now, as the owner: execvp searches its PATH */
  if (o->umask_value >= 0) umask((mode_t)o->umask_value);
  char script_path[64] = {0};
  if (in->script) script_copy(in, pipe_fd, script_path, sizeof script_path);
  if (o->out) {
    int fd = open_output(o->out, o->append);
    if (fd < 0 || dup2(fd, 1) < 0) child_fail(pipe_fd, "cannot open output file", o->out);
  }
  if (o->join) {
    if (dup2(1, 2) < 0) child_fail(pipe_fd, "cannot join stderr to stdout", NULL);
  } else if (o->err) {
    int fd = open_output(o->err, o->append);
    if (fd < 0 || dup2(fd, 2) < 0) child_fail(pipe_fd, "cannot open error file", o->err);
  }
  if (tag_error[0]) dprintf(2, "berth: %s\n", tag_error);
  if (container_wanted(&o->container)) {
    char error[800];
    if (container_enter(&o->container, o->cwd, error, sizeof error) < 0) {
      dprintf(2, "berth: %s\n", error);
      dprintf(pipe_fd, "%s", error);
      _exit(EXIT_SETUP);
    }
  } else if (o->cwd && chdir(o->cwd) < 0) {
    int e = errno;
    dprintf(2, "berth: cannot change to the working directory %s: %s\n", o->cwd, strerror(e));
    errno = e;
    child_fail(pipe_fd, "cannot change to the working directory", o->cwd);
  }
  apply_limits(o, pipe_fd);
  const char *argv0 = o->argv0;
  if (container_wanted(&o->container) && in->script && access(o->program[0], X_OK) < 0) {
    /* the owner's login shell is the host's; an image without it runs the script with sh */
    o->program[0] = "/bin/sh";
    argv0 = "-sh";
  }
  int count = 0;
  while (o->program[count]) count++;
  char **argv = calloc((size_t)count + 2, sizeof *argv);
  if (!argv) child_fail(pipe_fd, "no memory for the arguments", NULL);
  int n = 0;
  argv[n++] = argv0 ? (char *)argv0 : o->program[0];
  for (int i = 1; i < count; i++) argv[n++] = o->program[i];
  if (in->script) argv[n++] = script_path;
  argv[n] = NULL;
  if (o->search_path) execvp(o->program[0], argv);
  else execv(o->program[0], argv);
  int e = errno;
  dprintf(2, "berth: cannot run %s: %s\n", o->program[0], strerror(e));
  errno = e;
  child_fail(pipe_fd, "cannot run", o->program[0]);
}

int main(int argc, char **argv) {
  struct options o;
  parse(argc, argv, &o);
  status_path = o.status;
  struct input in;
  read_input(&in); /* first: the mom waits until its input is taken */
  if (o.terminal && in.script) fail("--terminal takes no script: the program reads the terminal");
  if (setsid() < 0 && getpgrp() != getpid()) fail("setsid: %s", strerror(errno));
  join_cgroups(&o);
  if (o.jobid) tag_session(o.jobid_file, o.jobid);
  int terminal = o.terminal ? take_terminal(&o) : -1;
  if (o.hostname) own_hostname(o.hostname);
  int report[2];
  if (pipe2(report, O_CLOEXEC) < 0) fail("pipe: %s", strerror(errno));
  signal(SIGHUP, SIG_IGN); /* the mom going away must not end the job */
  signal(SIGPIPE, SIG_IGN);
  pid_t pid = fork();
  if (pid < 0) fail("fork: %s", strerror(errno));
  if (pid == 0) {
    close(report[0]);
    child(&o, &in, report[1], terminal);
  }
  close(report[1]);
  if (terminal >= 0) close(terminal); /* the session keeps it as its controlling terminal */
  char msg[900] = {0};
  ssize_t got, total = 0;
  while ((got = read(report[0], msg + total, sizeof msg - 1 - total)) > 0) total += got;
  close(report[0]);
  int status;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) fail("wait: %s", strerror(errno));
  }
  long long cpu_us = (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec +
                     (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec;
  long maxrss_kb = usage.ru_maxrss;
  if (total > 0) {
    write_status("failed %s", msg);
    return EXIT_SETUP;
  }
  if (WIFSIGNALED(status)) {
    write_status("signal %d %lld %ld", WTERMSIG(status), cpu_us, maxrss_kb);
    return 128 + WTERMSIG(status);
  }
  write_status("exit %d %lld %ld", WEXITSTATUS(status), cpu_us, maxrss_kb);
  return WEXITSTATUS(status);
}

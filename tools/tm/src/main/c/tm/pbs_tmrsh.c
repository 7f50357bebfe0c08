/*
 * pbs_tmrsh [options] host command...: an rsh/ssh look-alike that runs the command on a node of
 * the caller's job through the job's task manager, for MPI launchers (Open MPI's and MPICH's)
 * that start their daemons with rsh or ssh. Its command line is read as ssh reads its own:
 * options, the host, then the remote command, whose words are joined with single blanks and
 * handed to the user's shell as sshd does, so the quotes and ';' that MPI launchers put in them
 * mean what they would over ssh. Output, input, signals and the exit status pass through as over
 * an ssh session; like ssh it exits 255 for its own failures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "tm.h"

#define USAGE                                                                                      \
  "usage: pbs_tmrsh [-n] [-l user] [-xXTtq46AaC] [-p port] [-o option] host command [args...]\n"
/* --help: docs/commands.md's "pbs_tmrsh" in short (it has the whole text, as has `man pbs_tmrsh`) */
#define HELP                                                                                       \
  "pbs_tmrsh: an rsh/ssh look-alike for MPI launchers: runs a command on a node of the caller's\n" \
  "job through the job's task manager, inside the job's cgroup there, as the job's owner.\n\n"     \
  USAGE                                                                                            \
  "\n"                                                                                             \
  "  host      a node of the job, by its name or its short name\n"                                 \
  "  command   joined with blanks and run as $SHELL -c LINE, as ssh does\n"                        \
  "  -n        the command's stdin is empty (else it is pbs_tmrsh's)\n"                            \
  "  -l user   only the caller's own user name: tasks run as the job's owner\n"                    \
  "  -x -X -T -t -q -4 -6 -A -a -C, -p port, -o option: accepted for ssh's sake, no effect\n"      \
  "  --help    this text\n"                                                                        \
  "  --version Berth's version\n"                                                                  \
  "\n"                                                                                             \
  "Exit status: the command's, 128 + signal when it was killed, 255 for pbs_tmrsh's own\n"         \
  "failures. The whole text: man pbs_tmrsh, or docs/commands.md, \"pbs_tmrsh\".\n"
#define FAILED 255       /* ssh's status for its own errors */
#define CHUNK (64 << 10) /* stdin goes to the task in pieces of at most this */
#define DEFAULT_SHELL "/bin/sh"

struct line {
  const char *host;
  char **command; /* the command's words as given (maybe none) */
  int words;
  int no_stdin;      /* -n: the command's stdin is empty */
  const char *login; /* -l user */
};

enum outcome { PENDING, ANSWERED, REFUSED, LOST };

/* The task, and the one request waiting for its answer: the spawn, then the wait. */
struct session {
  struct tm_conn c;
  enum tm_kind asked;
  enum outcome outcome; /* REFUSED: a TmError; LOST: no answer, or one of another kind */
  char *message;        /* why, or TmExited.error */
  int32_t task;
  int32_t status;
};

static int parse(int argc, char **argv, struct line *l) {
  int c;
  memset(l, 0, sizeof *l);
  opterr = 0;
  /* ssh's options that take no argument change nothing here, -n aside */
  while ((c = getopt(argc, argv, "+:nxXTtq46AaCl:p:o:")) != -1) {
    if (c == '?' || c == ':') {
      fprintf(stderr, "pbs_tmrsh: %s -- '%c'\n%s",
              c == '?' ? "invalid option" : "option requires an argument", optopt, USAGE);
      return -1;
    }
    if (c == 'n') l->no_stdin = 1;
    if (c == 'l') l->login = optarg;
  }
  if (optind >= argc) {
    fprintf(stderr, "pbs_tmrsh: no host given\n%s", USAGE);
    return -1;
  }
  l->host = argv[optind];
  l->command = argv + optind + 1;
  l->words = argc - optind - 1;
  return 0;
}

/* Tasks always run as the job's owner: -l may only name the caller. */
static int login_refused(const struct line *l) {
  if (!l->login) return 0;
  struct passwd *me = getpwuid(getuid());
  if (me && !strcmp(me->pw_name, l->login)) return 0;
  tm_say("cannot run as %s: tasks run as the job's owner", l->login);
  return 1;
}

/* The task's argv: the user's shell ($SHELL if absolute, else /bin/sh) -c the joined words. */
static char **shell_argv(const struct line *l) {
  static char *argv[3];
  const char *shell = getenv("SHELL");
  size_t size = 1;
  for (int i = 0; i < l->words; i++) size += strlen(l->command[i]) + 1;
  char *joined = tm_alloc(size), *at = joined;
  for (int i = 0; i < l->words; i++) {
    at = stpcpy(at, i ? " " : "");
    at = stpcpy(at, l->command[i]);
  }
  argv[0] = (char *)(shell && shell[0] == '/' ? shell : DEFAULT_SHELL);
  argv[1] = "-c";
  argv[2] = joined;
  return argv;
}

static int on_response(void *ctx, const struct tm_response *r) {
  struct session *s = ctx;
  if (TM_ID_KIND(r->id) == TM_ASK_SIGNAL) return 1; /* an answer to a signal changes nothing */
  if (s->outcome != PENDING || r->id != TM_ID(s->asked, 0)) return 0;
  enum tm_body expected = s->asked == TM_ASK_SPAWN ? TM_SPAWNED : TM_EXITED;
  if (r->body != expected) {
    s->outcome = r->body == TM_ERROR ? REFUSED : LOST;
    s->message = tm_unexpected(r, expected);
    return 1;
  }
  s->outcome = ANSWERED;
  if (expected == TM_SPAWNED) {
    s->task = r->task_id;
  } else {
    s->status = r->exit_status;
    s->message = tm_strdup(r->error);
  }
  return 1;
}

static void on_signal(void *ctx, int signal) {
  struct session *s = ctx;
  tm_send_signal(&s->c, TM_ID(TM_ASK_SIGNAL, 0), s->task, signal);
}

/*
 * Waits for the answer to `asked` while feeding the task stdin from *stdin_fd (0 until its end,
 * then -1). Stdin is read only as fast as the task manager takes it.
 */
static void await(struct session *s, enum tm_kind asked, int *stdin_fd) {
  static char chunk[CHUNK];
  s->asked = asked;
  s->outcome = PENDING;
  while (s->outcome == PENDING && !s->c.ended) {
    struct pollfd in = {.fd = tm_pending(&s->c) < CHUNK ? *stdin_fd : -1, .events = POLLIN};
    tm_poll(&s->c, &in, 1);
    if (!in.revents) continue;
    ssize_t n = (in.revents & POLLNVAL) ? 0 : read(*stdin_fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n > 0) {
      tm_send_input(&s->c, s->task, chunk, (size_t)n, 0);
    } else {
      /* the end of stdin, or stdin unreadable: close the task's */
      tm_send_input(&s->c, s->task, NULL, 0, 1);
      *stdin_fd = -1;
    }
  }
  if (s->outcome == PENDING) {
    s->outcome = LOST;
    s->message = tm_strdup((struct pb_bytes){s->c.why, strlen(s->c.why)});
  }
}

static int run(struct session *s, const struct line *l, const struct tm_node *node) {
  struct tm_spawn spawn = {.node = node->name, .argv = shell_argv(l), .argc = 3, .cwd = "",
                           .vnode = node->first_vnode, .relay_output = 1};
  int stdin_fd = -1;
  tm_send_spawn(&s->c, TM_ID(TM_ASK_SPAWN, 0), &spawn);
  await(s, TM_ASK_SPAWN, &stdin_fd);
  if (s->outcome != ANSWERED) {
    tm_say("cannot start a task on %s: %s", l->host, s->message);
    return FAILED;
  }
  tm_trap((const int[]){SIGINT, SIGTERM, SIGHUP}, 3);
  if (l->no_stdin) tm_send_input(&s->c, s->task, NULL, 0, 1);
  else stdin_fd = 0;
  tm_send_wait(&s->c, TM_ID(TM_ASK_WAIT, 0), s->task);
  await(s, TM_ASK_WAIT, &stdin_fd);
  switch (s->outcome) {
  case REFUSED:
    tm_say("cannot wait for the task on %s: %s", l->host, s->message);
    return FAILED;
  case LOST:
    tm_say("lost the connection to the task manager: %s", s->message);
    return FAILED;
  default:
    break;
  }
  if (s->status < 0) {
    tm_say("cannot run the command on %s: %s", l->host, s->message);
    return FAILED;
  }
  return tm_exit_code(s->status);
}

int pbs_tmrsh_main(int argc, char **argv) {
  static struct session s;
  struct line l;
  struct tm_nodes nodes;
  if (answered_help(argc, argv, HELP)) return 0;
  if (parse(argc, argv, &l) < 0 || login_refused(&l)) return FAILED;
  if (l.words == 0) {
    tm_say("no command given (interactive logins are not supported)");
    return FAILED;
  }
  if (tm_connect(&s.c) < 0 || tm_get_nodes(&s.c, &nodes) < 0) return FAILED;
  const struct tm_node *node = tm_find_node(&nodes, l.host);
  if (!node) {
    tm_say_not_a_node(&nodes, l.host);
    return FAILED;
  }
  s.c.on_response = on_response;
  s.c.on_signal = on_signal;
  s.c.ctx = &s;
  return run(&s, &l, node);
}

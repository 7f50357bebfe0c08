/*
 * berth-tm: pbsdsh, pbs_tmrsh and srun in one small program (see tm.h). Called as
 * `berth-tm pbsdsh ARGS...` or `berth-tm pbs_tmrsh ARGS...`, or through a link named after the
 * command. This file holds only main, which picks the command.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tm.h"

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static const char *command(const char *name) {
  if (!strcmp(name, "pbsdsh")) return "pbsdsh";
  if (!strcmp(name, "pbs_tmrsh")) return "pbs_tmrsh";
  if (!strcmp(name, "srun")) return "srun";
  return NULL;
}

#ifndef BERTH_VERSION
#error "build-native defines BERTH_VERSION: the project version, from the pom"
#endif

int answered_help(int argc, char **argv, const char *help) {
  if (argc < 2) return 0;
  if (!strcmp(argv[1], "--help")) {
    fputs(help, stdout);
  } else if (!strcmp(argv[1], "--version")) {
    printf("Version: %s\n", BERTH_VERSION);
  } else {
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *name = argc > 0 ? command(base_name(argv[0])) : NULL;
  if (!name && argc > 1 && (name = command(base_name(argv[1])))) {
    argc--;
    argv++;
  }
  if (!name) {
    fprintf(stderr, "usage: berth-tm pbsdsh|pbs_tmrsh|srun [ARGS...]\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN); /* a closed stdout loses task output; the tasks run on all the same */
  if (!strcmp(name, "pbsdsh")) {
    tm_init(name, 1);
    return pbsdsh_main(argc, argv);
  }
  if (!strcmp(name, "srun")) {
    tm_init(name, 1);
    return srun_main(argc, argv);
  }
  tm_init(name, 255); /* ssh's status for its own failures */
  return pbs_tmrsh_main(argc, argv);
}

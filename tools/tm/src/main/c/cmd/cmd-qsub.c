/*
 * What qsub will read, known before the server asks: its script, the one operand of its command
 * line. It goes with the first request, so `qsub job.pbs` is one round trip instead of two. The
 * command line is read by qsub's own rules (GNU getopt as dev.berth.client.Getopt reads it, with
 * QsubFlags.QSUB, which QsubFlagsTest holds this copy to); where this guess is wrong the server
 * still asks for what it needs, so a wrong guess costs only the round trip it meant to save.
 */
#include <stddef.h>
#include <string.h>

#include "cmd.h"

#define QSUB_OPTIONS "a:A:b:c:C:d:D:e:EfF:hi:Ij:J:k:K:l:L:m:M:nN:o:p:P:q:r:S:t:T:u:v:Vw:W:Xxz-:"

const char *cmd_qsub_script(const struct run *run) {
  const char *operand = NULL;
  int operands = 0;
  for (int i = 0; i < run->nargs; i++) {
    const char *arg = run->args[i];
    if (!strcmp(arg, "--")) {
      operands += run->nargs - i - 1;
      if (!operand && i + 1 < run->nargs) operand = run->args[i + 1];
      break;
    }
    if (arg[0] == '-' && arg[1] == '-') continue; /* --version */
    if (arg[0] != '-' || !arg[1]) {
      if (!operands++) operand = arg;
      continue;
    }
    for (const char *c = arg + 1; *c; c++) {
      const char *known = *c == ':' || *c == '+' ? NULL : strchr(QSUB_OPTIONS, *c);
      if (!known) return NULL; /* refused anyway */
      if (known[1] != ':') continue;
      if (!c[1]) i++; /* the next word is the option's argument */
      break;
    }
  }
  return operands == 1 && *operand ? operand : NULL;
}

/* The commands built on the TM client (tm.h); berth-tm.c's main picks one. */
#ifndef BERTH_TM_COMMANDS_H
#define BERTH_TM_COMMANDS_H

int pbsdsh_main(int argc, char **argv);
int pbs_tmrsh_main(int argc, char **argv);
int srun_main(int argc, char **argv);

/*
 * `COMMAND --help` or `COMMAND --version` (the first argument only: later ones may be a value or
 * the program's own): prints `help`, or Berth's version as the Torque commands do, on stdout and
 * returns 1; returns 0 when neither was asked.
 */
int answered_help(int argc, char **argv, const char *help);

#endif

/* The commands built on the TM client (tm.h); berth-tm.c's main picks one. */
#ifndef BERTH_TM_COMMANDS_H
#define BERTH_TM_COMMANDS_H

int pbsdsh_main(int argc, char **argv);
int pbs_tmrsh_main(int argc, char **argv);

#endif

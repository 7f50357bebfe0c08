#ifndef BERTH_STEP_ADDRESS_H
#define BERTH_STEP_ADDRESS_H

#include <stddef.h>

/* This host's IPv4 address for the step's tasks on other nodes, as text: step-address.c says
 * which it picks. */
void step_host_address(char *out, size_t size);

#endif

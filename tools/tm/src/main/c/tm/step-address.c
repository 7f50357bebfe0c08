/* The address srun's step servers (pmi.c, step-pmix.c) give the step's tasks (step-address.h). */
#define _GNU_SOURCE
#include "step-address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * This host's address for the tasks on the others, as a number: a task's node may not resolve
 * names as this one does (a job in a mount namespace of its own, a site's split DNS). The host
 * name's first IPv4 address unless that is a loopback one, else the first address of an interface
 * that is up and no loopback (as MPICH's hydra picks), else the loopback: the step's nodes are then
 * this host (moms that share one).
 */
void step_host_address(char *out, size_t size) {
  char name[256] = "";
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *found = NULL;
  snprintf(out, size, "127.0.0.1");
  if (gethostname(name, sizeof name - 1) == 0 && getaddrinfo(name, NULL, &hints, &found) == 0) {
    struct in_addr a = ((struct sockaddr_in *)found->ai_addr)->sin_addr;
    freeaddrinfo(found);
    if ((ntohl(a.s_addr) >> 24) != 127) {
      inet_ntop(AF_INET, &a, out, (socklen_t)size);
      return;
    }
  }
  struct ifaddrs *all;
  if (getifaddrs(&all) < 0) return;
  for (struct ifaddrs *i = all; i; i = i->ifa_next) {
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
        !(i->ifa_flags & IFF_LOOPBACK)) {
      inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out, (socklen_t)size);
      break;
    }
  }
  freeifaddrs(all);
}

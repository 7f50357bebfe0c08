/*
 * berth-container: how berth-starter puts a job process into its container image, as the job's
 * owner, after it has dropped root (see berth-container.c).
 */
#ifndef BERTH_CONTAINER_H
#define BERTH_CONTAINER_H

#include <stddef.h>

#define CONTAINER_MAX_ITEMS 64

struct container {
  const char *image;     /* squashfs file to read as the owner; NULL with an existing named one */
  const char *cache;     /* the owner's unpacked images on this node: CACHE/sha256/HEX */
  const char *named;     /* a named container's root directory, made from the image if missing */
  const char *scratch;   /* where a writable container's changes go (the job's TMPDIR) */
  const char *workdir;   /* inside; NULL: the job's working directory if there, else / */
  int writable, remap_root;
  const char *mounts[CONTAINER_MAX_ITEMS];  /* SOURCE:TARGET[:ro], sources already expanded */
  int nmounts;
  const char *binds[CONTAINER_MAX_ITEMS];   /* host paths bound at the same path inside */
  int nbinds;
  const char *devices[CONTAINER_MAX_ITEMS]; /* device files bound into /dev by their base name */
  int ndevices;
  const char *nvidia;    /* the job's NVIDIA GPUs by UUID, comma separated: the driver's files */
  const char *host_env[CONTAINER_MAX_ITEMS]; /* names whose values the process brings win over
                                                the image's (pyxis's --container-env) */
  int nhost_env;
};

/*
 * Parses one --container-* option into c; returns 1 if it was one (consuming value), 0 if not,
 * -1 for a bad value (message in error).
 */
int container_option(struct container *c, const char *flag, const char *value, char *error,
                     size_t size);

/* Whether any --container-* option was given. */
int container_wanted(const struct container *c);

/*
 * Enters the container: finds or unpacks the root file system, makes a user and a mount
 * namespace, mounts, pivots into the root and changes to the working directory (job_cwd is the
 * one asked for outside). Returns 0, or -1 with a message for the job's owner in error.
 */
int container_enter(const struct container *c, const char *job_cwd, char *error, size_t size);

#endif

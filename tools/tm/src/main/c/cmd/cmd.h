/*
 * berth-cmd: the Torque commands (qsub, qstat, qdel, ...) as a small native client. It sends the
 * server the command's name, arguments, working directory and the few environment variables
 * every command reads (RunCommand, client.proto); the server runs the one Java implementation of
 * the command as the caller the kernel names and answers with what it printed and its exit
 * status. When the command needs more (its script or standard input, the whole environment), the
 * server says so and the client sends the request again with it, read with the caller's own
 * permissions. What only a process can do (prompting on a terminal), and any server it cannot
 * reach, it leaves to the Java command (berth-java), which prints what it always did.
 */
#ifndef BERTH_CMD_H
#define BERTH_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "pbwire.h"

#define CMD_MAX_FRAME (512u << 20) /* the longest reply read, as the Java client (Frames) */
#define CMD_MAX_INPUT (8u << 20)   /* the most of a file or standard input sent */

/* A growing byte buffer. */
struct buf {
  unsigned char *p;
  size_t n, cap;
};

void buf_free(struct buf *b);
/* A string or bytes field, written even when empty (an element of a repeated field). */
void buf_bytes(struct buf *b, int field, const void *data, size_t n);
/* A string field, left out when empty. */
void buf_text(struct buf *b, int field, const char *s);
/* An int32, enum or bool field, left out at 0. */
void buf_int(struct buf *b, int field, int64_t v);

/* A file the server asked for, as read here; or a path it asked about (a probe). */
struct local_file {
  char *path;
  struct buf content;
  long long size; /* probes: the file's size */
  int problem; /* LocalFile.Problem */
  const char *reason;
  int writable; /* probes: the caller may write it (a directory: make files in it) */
};

enum { FILE_NONE = 0, FILE_MISSING, FILE_DENIED, FILE_DIRECTORY, FILE_OTHER };

/* What the client sends: grows as the server asks for more. */
struct run {
  const char *name;
  char **args;
  int nargs;
  char cwd[4096];
  char zone[256];
  int terminal;
  char submission_id[37];
  int whole_environment;
  int stdin_given;
  struct buf stdin_bytes;
  struct local_file *files;
  int nfiles;
  struct local_file *probes;
  int nprobes;
};

/* What the server answered (pointers into the reply frame). */
struct reply {
  uint64_t id;
  int has_error, has_command;
  int32_t error_code;
  struct pb_bytes error_message;
  struct pb_bytes outputs; /* the CommandReply, whose Output fields are written in order */
  int32_t exit_status;
  int32_t repeat_after; /* squeue -i: seconds until the same request is sent again; 0: never */
  int has_needs;
  int needs_stdin, needs_environment, needs_interaction;
  struct pb_bytes needs; /* the CommandNeeds, for its files */
};

/* cmd-wire.c */
void cmd_encode(struct buf *frame, uint64_t id, const struct run *run);
int cmd_decode(const unsigned char *p, size_t n, struct reply *r);
/* Calls f for each Output of r, in order; stops at the first nonzero return. */
int cmd_each_output(const struct reply *r, int (*f)(int is_stderr, struct pb_bytes data));
/* CommandNeeds' fields that name paths: files to read, paths to probe. */
enum { NEEDS_FILES = 2, NEEDS_PROBES = 5 };
/* Calls f for each path the given field of r's needs names. */
int cmd_each_needed(const struct reply *r, int field,
                    int (*f)(struct run *run, struct pb_bytes path), struct run *run);

/* cmd-local.c: what the client reads on its own host */
void cmd_zone(char *zone, size_t size);
int cmd_submission_id(char id[37]);
int cmd_read_stdin(struct run *run);
int cmd_read_file(struct run *run, struct pb_bytes path);
int cmd_probe_file(struct run *run, struct pb_bytes path);

/* cmd-qsub.c: qsub's script operand, sent before the server asks for it; NULL when none is sure */
const char *cmd_qsub_script(const struct run *run);
/* Reads the file `arg` names (relative to the run's cwd) into run->files, as cmd_read_file does. */
int cmd_read_named(struct run *run, const char *arg);

/* cmd-server.c: finding and talking to the server */
struct sockets {
  char **path;
  int n;
};

int cmd_sockets(struct sockets *s);
/* Connects to the first socket that answers, trying `last_failed` (or -1) last; -1 if none. */
int cmd_connect(const struct sockets *s, int last_failed, int *which);
int cmd_send(int fd, const struct buf *frame);
/* Reads one frame into *frame; 0, or -1 with a reason in why. */
int cmd_receive(int fd, struct buf *frame, char *why, size_t size);

#endif

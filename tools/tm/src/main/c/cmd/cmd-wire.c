/*
 * RunCommand requests and their Responses (client.proto) in protobuf's wire format (pbwire.h),
 * read as protobuf-java reads them: fields in any order, unknown ones skipped, the last body
 * field winning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

extern char **environ;

/* Request.run_command and Response's bodies. */
enum { REQUEST_RUN_COMMAND = 40, RESPONSE_ERROR = 10, RESPONSE_COMMAND = 40 };

/*
 * The variables the client sends with every command: those Torque's commands read (qsub's
 * PBS_O_* copies, its directive prefix, qstat's PBS_QSTAT_NO_COMPLETE). The server asks for the
 * whole environment when a command reads any other; this list only saves that round trip.
 */
static const char *const BASIC_VARIABLES[] = {
    "HOME", "LANG",        "LOGNAME", "PATH", "MAIL", "SHELL", "TZ", "PBS_DPREFIX",
    "PBS_QSTAT_NO_COMPLETE", NULL};

static void reserve(struct buf *b, size_t n) {
  if (b->n + n <= b->cap) return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->n + n) cap *= 2;
  unsigned char *p = realloc(b->p, cap);
  if (!p) {
    fputs("berth-cmd: out of memory\n", stderr);
    exit(1);
  }
  b->p = p;
  b->cap = cap;
}

void buf_free(struct buf *b) {
  free(b->p);
  *b = (struct buf){0};
}

/* Room for any field's tag (at most five bytes) and a length or value (at most ten). */
#define TAG_AND_VARINT 15

void buf_bytes(struct buf *b, int field, const void *data, size_t n) {
  reserve(b, TAG_AND_VARINT + n);
  b->n = (size_t)(pb_put_bytes(b->p + b->n, field, data, n) - b->p);
}

void buf_text(struct buf *b, int field, const char *s) {
  if (*s) buf_bytes(b, field, s, strlen(s));
}

void buf_int(struct buf *b, int field, int64_t v) {
  reserve(b, TAG_AND_VARINT);
  b->n = (size_t)(pb_put_int(b->p + b->n, field, v) - b->p);
}

static void put_message(struct buf *b, int field, struct buf *message) {
  buf_bytes(b, field, message->p ? message->p : (const unsigned char *)"", message->n);
  buf_free(message);
}

static void put_environment(struct buf *b, const struct run *run) {
  if (run->whole_environment) {
    for (char **e = environ; *e; e++) {
      if (strchr(*e, '=')) buf_bytes(b, 4, *e, strlen(*e));
    }
    buf_int(b, 6, 1);
    return;
  }
  for (const char *const *name = BASIC_VARIABLES; *name; name++) {
    size_t len = strlen(*name);
    const char *entry = NULL;
    for (char **e = environ; *e && !entry; e++) {
      if (!strncmp(*e, *name, len) && (*e)[len] == '=') entry = *e;
    }
    if (entry) buf_bytes(b, 4, entry, strlen(entry));
    else buf_bytes(b, 5, *name, len);
  }
}

/* A LocalFile: a file read, or a path probed. */
static void put_file(struct buf *body, int field, const struct local_file *f) {
  struct buf file = {0};
  buf_text(&file, 1, f->path);
  if (f->content.n) buf_bytes(&file, 2, f->content.p, f->content.n);
  buf_int(&file, 3, f->problem);
  buf_text(&file, 4, f->reason ? f->reason : "");
  buf_int(&file, 5, f->size);
  if (f->writable) buf_int(&file, 6, 1);
  put_message(body, field, &file);
}

void cmd_encode(struct buf *frame, uint64_t id, const struct run *run) {
  struct buf body = {0};
  buf_text(&body, 1, run->name);
  for (int i = 0; i < run->nargs; i++) buf_bytes(&body, 2, run->args[i], strlen(run->args[i]));
  buf_text(&body, 3, run->cwd);
  put_environment(&body, run);
  buf_text(&body, 7, run->zone);
  buf_int(&body, 8, run->terminal);
  buf_int(&body, 9, run->stdin_given);
  if (run->stdin_given && run->stdin_bytes.n)
    buf_bytes(&body, 10, run->stdin_bytes.p, run->stdin_bytes.n);
  for (int i = 0; i < run->nfiles; i++) put_file(&body, 11, &run->files[i]);
  buf_text(&body, 12, run->submission_id);
  for (int i = 0; i < run->nprobes; i++) put_file(&body, 13, &run->probes[i]);

  struct buf request = {0};
  buf_int(&request, 1, (int64_t)id);
  put_message(&request, REQUEST_RUN_COMMAND, &body);

  frame->n = 0;
  reserve(frame, pb_varint_size(request.n) + request.n);
  frame->n = (size_t)(pb_put_varint(frame->p, request.n) - frame->p);
  memcpy(frame->p + frame->n, request.p, request.n);
  frame->n += request.n;
  buf_free(&request);
}

static int get_error(struct pb_bytes raw, struct reply *r) {
  struct pb_reader in = pb_reader_of(raw);
  while (in.p < in.end) {
    struct pb_field f;
    if (pb_get_field(&in, &f, 0) < 0) return -1;
    if (f.number == 1 && f.wire == PB_VARINT) r->error_code = (int32_t)(uint32_t)f.v;
    if (f.number == 2 && f.wire == PB_LEN) r->error_message = f.b;
  }
  return 0;
}

static int get_needs(struct pb_bytes raw, struct reply *r) {
  struct pb_reader in = pb_reader_of(raw);
  r->has_needs = 1;
  r->needs = raw;
  while (in.p < in.end) {
    struct pb_field f;
    if (pb_get_field(&in, &f, 0) < 0) return -1;
    if (f.wire != PB_VARINT) continue;
    if (f.number == 1) r->needs_stdin = f.v != 0;
    if (f.number == 3) r->needs_environment = f.v != 0;
    if (f.number == 4) r->needs_interaction = f.v != 0;
  }
  return 0;
}

static int get_command(struct pb_bytes raw, struct reply *r) {
  struct pb_reader in = pb_reader_of(raw);
  r->outputs = raw;
  while (in.p < in.end) {
    struct pb_field f;
    if (pb_get_field(&in, &f, 0) < 0) return -1;
    if (f.number == 2 && f.wire == PB_VARINT) r->exit_status = (int32_t)(uint32_t)f.v;
    if (f.number == 3 && f.wire == PB_LEN && get_needs(f.b, r) < 0) return -1;
    if (f.number == 4 && f.wire == PB_VARINT) r->repeat_after = (int32_t)(uint32_t)f.v;
  }
  return 0;
}

int cmd_decode(const unsigned char *p, size_t n, struct reply *r) {
  struct pb_reader in = {p, p + n};
  memset(r, 0, sizeof *r);
  while (in.p < in.end) {
    struct pb_field f;
    if (pb_get_field(&in, &f, 0) < 0) return -1;
    if (f.number == 1 && f.wire == PB_VARINT) {
      r->id = f.v;
    } else if ((f.number == RESPONSE_ERROR || f.number == RESPONSE_COMMAND) && f.wire == PB_LEN) {
      struct reply body = {.id = r->id}; /* the last body wins, as in a oneof */
      *r = body;
      if (f.number == RESPONSE_ERROR) {
        r->has_error = 1;
        if (get_error(f.b, r) < 0) return -1;
      } else {
        r->has_command = 1;
        if (get_command(f.b, r) < 0) return -1;
      }
    }
  }
  return 0;
}

int cmd_each_output(const struct reply *r, int (*f)(int is_stderr, struct pb_bytes data)) {
  struct pb_reader in = pb_reader_of(r->outputs);
  while (in.p < in.end) {
    struct pb_field field;
    if (pb_get_field(&in, &field, 0) < 0) return -1;
    if (field.number != 1 || field.wire != PB_LEN) continue;
    int is_stderr = 0;
    struct pb_bytes data = {"", 0};
    struct pb_reader output = pb_reader_of(field.b);
    while (output.p < output.end) {
      struct pb_field o;
      if (pb_get_field(&output, &o, 0) < 0) return -1;
      if (o.number == 1 && o.wire == PB_VARINT) is_stderr = o.v != 0;
      if (o.number == 2 && o.wire == PB_LEN) data = o.b;
    }
    int status = f(is_stderr, data);
    if (status) return status;
  }
  return 0;
}

int cmd_each_needed(const struct reply *r, int number,
                    int (*f)(struct run *run, struct pb_bytes path), struct run *run) {
  struct pb_reader in = pb_reader_of(r->needs);
  while (in.p < in.end) {
    struct pb_field field;
    if (pb_get_field(&in, &field, 0) < 0) return -1;
    if (field.number == number && field.wire == PB_LEN && f(run, field.b) < 0) return -1;
  }
  return 0;
}

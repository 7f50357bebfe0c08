/*
 * The few TM messages (tm.proto) in protobuf's wire format (pbwire.h). Requests are written as
 * protobuf-java writes them (the oneof body always present). Responses are read as protobuf-java
 * reads them: fields in any order, unknown fields skipped, a field with an unexpected wire type
 * treated as unknown, the last body field winning.
 */
#include <stdlib.h>
#include <string.h>

#include "tm.h"

/* TmRequest's body fields. */
enum { NODES = 10, SPAWN, WAIT, SIGNAL, INPUT };

extern char **environ;

/* ---- encoding ---- */

/* The frame of a TmRequest whose body (field `body`) is `size` bytes: its length, id and tag. */
static size_t frame_size(uint64_t id, size_t size) {
  size_t request = pb_int_size((int64_t)id) + pb_len_size(size);
  return pb_varint_size(request) + request;
}

static unsigned char *put_frame(unsigned char *p, uint64_t id, int body, size_t size) {
  p = pb_put_varint(p, pb_int_size((int64_t)id) + pb_len_size(size));
  p = pb_put_int(p, 1, (int64_t)id);
  return pb_put_len(p, body, size);
}

size_t tm_encode_nodes(unsigned char *p, uint64_t id) {
  if (p) put_frame(p, id, NODES, 0);
  return frame_size(id, 0);
}

/* An environment entry "KEY=VALUE" as a map entry (key = 1, value = 2); 0 when it has no '='. */
static size_t env_entry(const char *entry, size_t *key, size_t *value) {
  const char *eq = strchr(entry, '=');
  if (!eq) return 0;
  *key = (size_t)(eq - entry);
  *value = strlen(eq + 1);
  return pb_len_size(*key) + pb_len_size(*value);
}

/* The task's GPUs, packed (a repeated field's varints in one length-delimited one): GPU 0 too. */
static size_t gpus_size(const struct tm_spawn *s) {
  size_t n = 0;
  for (int i = 0; i < s->ngpus; i++) n += pb_varint_size((uint64_t)(uint32_t)s->gpus[i]);
  return n;
}

static size_t spawn_size(const struct tm_spawn *s) {
  size_t n = pb_text_size(strlen(s->node)) + pb_text_size(strlen(s->cwd)) + pb_int_size(s->vnode) +
             (s->relay_output ? 2 : 0);
  for (int i = 0; i < s->argc; i++) n += pb_len_size(strlen(s->argv[i]));
  for (char **e = environ; *e; e++) {
    size_t key, value, entry = env_entry(*e, &key, &value);
    if (entry) n += pb_len_size(entry);
  }
  if (s->ngpus > 0) n += pb_len_size(gpus_size(s));
  return n;
}

size_t tm_encode_spawn(unsigned char *p, uint64_t id, const struct tm_spawn *s) {
  size_t size = spawn_size(s);
  if (!p) return frame_size(id, size);
  p = put_frame(p, id, SPAWN, size);
  p = pb_put_text(p, 1, s->node, strlen(s->node));
  for (int i = 0; i < s->argc; i++) p = pb_put_bytes(p, 2, s->argv[i], strlen(s->argv[i]));
  for (char **e = environ; *e; e++) {
    size_t key, value, entry = env_entry(*e, &key, &value);
    if (!entry) continue;
    p = pb_put_len(p, 3, entry);
    p = pb_put_bytes(p, 1, *e, key);
    p = pb_put_bytes(p, 2, *e + key + 1, value);
  }
  p = pb_put_text(p, 4, s->cwd, strlen(s->cwd));
  p = pb_put_int(p, 5, s->vnode);
  if (s->relay_output) p = pb_put_int(p, 6, 1);
  if (s->ngpus > 0) {
    p = pb_put_len(p, 7, gpus_size(s));
    for (int i = 0; i < s->ngpus; i++) p = pb_put_varint(p, (uint64_t)(uint32_t)s->gpus[i]);
  }
  return frame_size(id, size);
}

size_t tm_encode_wait(unsigned char *p, uint64_t id, int32_t task) {
  size_t size = pb_int_size(task);
  if (p) pb_put_int(put_frame(p, id, WAIT, size), 1, task);
  return frame_size(id, size);
}

size_t tm_encode_signal(unsigned char *p, uint64_t id, int32_t task, int32_t signal) {
  size_t size = pb_int_size(task) + pb_int_size(signal);
  if (p) pb_put_int(pb_put_int(put_frame(p, id, SIGNAL, size), 1, task), 2, signal);
  return frame_size(id, size);
}

size_t tm_encode_input(unsigned char *p, uint64_t id, int32_t task, const void *data, size_t n,
                       int eof) {
  size_t size = pb_int_size(task) + pb_text_size(n) + pb_int_size(eof != 0);
  if (p) {
    p = pb_put_int(put_frame(p, id, INPUT, size), 1, task);
    pb_put_int(pb_put_text(p, 2, data, n), 3, eof != 0);
  }
  return frame_size(id, size);
}

/* ---- decoding ---- */

/* Where a message's fields go, by field number: an int32 or a string/bytes; others are skipped. */
struct slots {
  int32_t *ints[5];
  struct pb_bytes *bytes[5];
};

static int get_message(struct pb_bytes raw, const struct slots *s) {
  struct pb_reader r = pb_reader_of(raw);
  while (r.p < r.end) {
    struct pb_field f;
    if (pb_get_field(&r, &f, 0) < 0) return -1;
    if (f.number >= 5) continue;
    if (f.wire == PB_VARINT && s->ints[f.number]) *s->ints[f.number] = (int32_t)(uint32_t)f.v;
    if (f.wire == PB_LEN && s->bytes[f.number]) *s->bytes[f.number] = f.b;
  }
  return 0;
}

/* A body field of TmResponse: it replaces any earlier one, as the oneof's last field wins. */
static int get_body(struct tm_response *r, int field, struct pb_bytes body) {
  r->body = (enum tm_body)field;
  r->task_id = r->exit_status = r->stream = 0;
  r->message = r->nodes = r->error = r->data = (struct pb_bytes){"", 0};
  switch (r->body) {
  case TM_ERROR:
    return get_message(body, &(struct slots){.bytes = {[1] = &r->message}});
  case TM_NODES:
    r->nodes = body;
    return 0;
  case TM_SPAWNED:
    return get_message(body, &(struct slots){.ints = {[1] = &r->task_id}});
  case TM_EXITED:
    return get_message(body, &(struct slots){.ints = {[1] = &r->task_id, [3] = &r->exit_status},
                                             .bytes = {[4] = &r->error}});
  case TM_OUTPUT:
    return get_message(body, &(struct slots){.ints = {[1] = &r->task_id, [2] = &r->stream},
                                             .bytes = {[3] = &r->data}});
  default:
    return 0;
  }
}

int tm_decode_response(const unsigned char *p, size_t n, struct tm_response *r) {
  struct pb_reader in = {p, p + n};
  memset(r, 0, sizeof *r);
  while (in.p < in.end) {
    struct pb_field f;
    if (pb_get_field(&in, &f, 0) < 0) return -1;
    if (f.number == 1 && f.wire == PB_VARINT) r->id = f.v;
    else if (f.number >= TM_ERROR && f.number <= TM_ACK && f.wire == PB_LEN) {
      if (get_body(r, f.number, f.b) < 0) return -1;
    }
  }
  return 0;
}

/* Copies b to *store as a C string and moves *store past it. */
static const char *copy_string(char **store, struct pb_bytes b) {
  char *s = *store;
  memcpy(s, b.p, b.n);
  s[b.n] = 0;
  *store += b.n + 1;
  return s;
}

/* A TmNode, its name copied to *store. */
static int get_node(struct pb_bytes raw, struct tm_node *node, char **store) {
  struct pb_bytes name = {"", 0};
  memset(node, 0, sizeof *node);
  struct slots s = {.ints = {[1] = &node->index, [3] = &node->slots, [4] = &node->first_vnode},
                    .bytes = {[2] = &name}};
  if (get_message(raw, &s) < 0) return -1;
  node->name = copy_string(store, name);
  return 0;
}

int tm_nodes_parse(struct pb_bytes raw, struct tm_nodes *nodes) {
  int count = 0;
  struct pb_field f;
  memset(nodes, 0, sizeof *nodes);
  for (struct pb_reader r = pb_reader_of(raw); r.p < r.end;) {
    if (pb_get_field(&r, &f, 0) < 0) return -1;
    if (f.number == 1 && f.wire == PB_LEN) count++;
  }
  /* A string and its NUL take no more room than the field that held it. */
  nodes->store = malloc(raw.n + 1);
  nodes->node = calloc((size_t)count + 1, sizeof *nodes->node);
  if (!nodes->store || !nodes->node) return -2;
  char *store = nodes->store;
  nodes->job_id = "";
  for (struct pb_reader r = pb_reader_of(raw); r.p < r.end;) {
    pb_get_field(&r, &f, 0);
    if (f.number == 1 && f.wire == PB_LEN) {
      if (get_node(f.b, &nodes->node[nodes->n++], &store) < 0) return -1;
    } else if (f.number == 2 && f.wire == PB_LEN) {
      nodes->job_id = copy_string(&store, f.b);
    }
  }
  return 0;
}

void tm_nodes_free(struct tm_nodes *nodes) {
  free(nodes->node);
  free(nodes->store);
  memset(nodes, 0, sizeof *nodes);
}

const char *tm_body_name(enum tm_body body) {
  static const char *names[] = {"ERROR", "NODES", "SPAWNED", "EXITED", "OUTPUT", "ACK"};
  return body >= TM_ERROR && body <= TM_ACK ? names[body - TM_ERROR] : "BODY_NOT_SET";
}

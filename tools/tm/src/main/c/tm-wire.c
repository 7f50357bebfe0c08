/*
 * The few TM messages (tm.proto) in protobuf's wire format, by hand: a frame is a varint length
 * and the message; a message is fields, each a tag (field number << 3 | wire type) and a value.
 * Requests are written as protobuf-java writes them (proto3: fields at their default are left
 * out, the oneof body always present). Responses are read as protobuf-java reads them: fields in
 * any order, unknown fields of every wire type skipped, a field with an unexpected wire type
 * treated as unknown, the last body field winning.
 */
#include <stdlib.h>
#include <string.h>

#include "tm.h"

enum { VARINT = 0, FIXED64 = 1, LEN = 2, GROUP_START = 3, GROUP_END = 4, FIXED32 = 5 };

/* TmRequest's body fields. */
enum { NODES = 10, SPAWN, WAIT, SIGNAL, INPUT };

extern char **environ;

/* ---- encoding ---- */

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}

static unsigned char *put_varint(unsigned char *p, uint64_t v) {
  for (; v >= 0x80; v >>= 7) *p++ = (unsigned char)(v | 0x80);
  *p++ = (unsigned char)v;
  return p;
}

/* int32 and uint64 fields, left out at 0; a negative int32 takes ten bytes, as in protobuf. */
static size_t int_size(int64_t v) { return v ? 1 + varint_size((uint64_t)v) : 0; }

static unsigned char *put_int(unsigned char *p, int field, int64_t v) {
  if (!v) return p;
  *p++ = (unsigned char)(field << 3 | VARINT);
  return put_varint(p, (uint64_t)v);
}

/* A length-delimited field holding n bytes. */
static size_t len_size(size_t n) { return 1 + varint_size(n) + n; }

static unsigned char *put_len(unsigned char *p, int field, size_t n) {
  *p++ = (unsigned char)(field << 3 | LEN);
  return put_varint(p, n);
}

static unsigned char *put_bytes(unsigned char *p, int field, const void *data, size_t n) {
  p = put_len(p, field, n);
  memcpy(p, data, n);
  return p + n;
}

/* A string or bytes field, left out when empty. */
static size_t text_size(size_t n) { return n ? len_size(n) : 0; }

static unsigned char *put_text(unsigned char *p, int field, const void *data, size_t n) {
  return n ? put_bytes(p, field, data, n) : p;
}

/* The frame of a TmRequest whose body (field `body`) is `size` bytes: its length, id and tag. */
static size_t frame_size(uint64_t id, size_t size) {
  size_t request = int_size((int64_t)id) + len_size(size);
  return varint_size(request) + request;
}

static unsigned char *put_frame(unsigned char *p, uint64_t id, int body, size_t size) {
  p = put_varint(p, int_size((int64_t)id) + len_size(size));
  p = put_int(p, 1, (int64_t)id);
  return put_len(p, body, size);
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
  return len_size(*key) + len_size(*value);
}

static size_t spawn_size(const struct tm_spawn *s) {
  size_t n = text_size(strlen(s->node)) + text_size(strlen(s->cwd)) + int_size(s->vnode) +
             (s->relay_output ? 2 : 0);
  for (int i = 0; i < s->argc; i++) n += len_size(strlen(s->argv[i]));
  for (char **e = environ; *e; e++) {
    size_t key, value, entry = env_entry(*e, &key, &value);
    if (entry) n += len_size(entry);
  }
  return n;
}

size_t tm_encode_spawn(unsigned char *p, uint64_t id, const struct tm_spawn *s) {
  size_t size = spawn_size(s);
  if (!p) return frame_size(id, size);
  p = put_frame(p, id, SPAWN, size);
  p = put_text(p, 1, s->node, strlen(s->node));
  for (int i = 0; i < s->argc; i++) p = put_bytes(p, 2, s->argv[i], strlen(s->argv[i]));
  for (char **e = environ; *e; e++) {
    size_t key, value, entry = env_entry(*e, &key, &value);
    if (!entry) continue;
    p = put_len(p, 3, entry);
    p = put_bytes(p, 1, *e, key);
    p = put_bytes(p, 2, *e + key + 1, value);
  }
  p = put_text(p, 4, s->cwd, strlen(s->cwd));
  p = put_int(p, 5, s->vnode);
  if (s->relay_output) put_int(p, 6, 1);
  return frame_size(id, size);
}

size_t tm_encode_wait(unsigned char *p, uint64_t id, int32_t task) {
  size_t size = int_size(task);
  if (p) put_int(put_frame(p, id, WAIT, size), 1, task);
  return frame_size(id, size);
}

size_t tm_encode_signal(unsigned char *p, uint64_t id, int32_t task, int32_t signal) {
  size_t size = int_size(task) + int_size(signal);
  if (p) put_int(put_int(put_frame(p, id, SIGNAL, size), 1, task), 2, signal);
  return frame_size(id, size);
}

size_t tm_encode_input(unsigned char *p, uint64_t id, int32_t task, const void *data, size_t n,
                       int eof) {
  size_t size = int_size(task) + text_size(n) + int_size(eof != 0);
  if (p) {
    p = put_int(put_frame(p, id, INPUT, size), 1, task);
    put_int(put_text(p, 2, data, n), 3, eof != 0);
  }
  return frame_size(id, size);
}

/* ---- decoding ---- */

struct reader {
  const unsigned char *p, *end;
};

/* One field: its number, wire type and value (varint in v, length-delimited in b). */
struct field {
  int number, wire;
  uint64_t v;
  struct tm_bytes b;
};

static int get_varint(struct reader *r, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
    unsigned char byte = *r->p++;
    *v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return 0;
  }
  return -1;
}

static int skip(struct reader *r, size_t n) {
  if ((size_t)(r->end - r->p) < n) return -1;
  r->p += n;
  return 0;
}

/* The next field; a group (a deprecated wire type, but still valid) is skipped as a whole. */
static int get_field(struct reader *r, struct field *f, int depth) {
  uint64_t tag;
  if (get_varint(r, &tag) < 0 || tag >> 3 == 0 || tag >> 3 > 0x1fffffff) return -1;
  f->number = (int)(tag >> 3);
  f->wire = (int)(tag & 7);
  switch (f->wire) {
  case VARINT:
    return get_varint(r, &f->v);
  case FIXED64:
    return skip(r, 8);
  case FIXED32:
    return skip(r, 4);
  case LEN:
    if (get_varint(r, &f->v) < 0 || f->v > (uint64_t)(r->end - r->p)) return -1;
    f->b.p = (const char *)r->p;
    f->b.n = (size_t)f->v;
    r->p += f->v;
    return 0;
  case GROUP_START:
    if (depth >= 32) return -1;
    for (;;) {
      struct field inner;
      if (get_field(r, &inner, depth + 1) < 0) return -1;
      if (inner.wire == GROUP_END) return inner.number == f->number ? 0 : -1;
    }
  case GROUP_END:
    return depth > 0 ? 0 : -1;
  default:
    return -1;
  }
}

static struct reader reader_of(struct tm_bytes b) {
  return (struct reader){(const unsigned char *)b.p, (const unsigned char *)b.p + b.n};
}

/* Where a message's fields go, by field number: an int32 or a string/bytes; others are skipped. */
struct slots {
  int32_t *ints[5];
  struct tm_bytes *bytes[5];
};

static int get_message(struct tm_bytes raw, const struct slots *s) {
  struct reader r = reader_of(raw);
  while (r.p < r.end) {
    struct field f;
    if (get_field(&r, &f, 0) < 0) return -1;
    if (f.number >= 5) continue;
    if (f.wire == VARINT && s->ints[f.number]) *s->ints[f.number] = (int32_t)(uint32_t)f.v;
    if (f.wire == LEN && s->bytes[f.number]) *s->bytes[f.number] = f.b;
  }
  return 0;
}

/* A body field of TmResponse: it replaces any earlier one, as the oneof's last field wins. */
static int get_body(struct tm_response *r, int field, struct tm_bytes body) {
  r->body = (enum tm_body)field;
  r->task_id = r->exit_status = r->stream = 0;
  r->message = r->nodes = r->error = r->data = (struct tm_bytes){"", 0};
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
  struct reader in = {p, p + n};
  memset(r, 0, sizeof *r);
  while (in.p < in.end) {
    struct field f;
    if (get_field(&in, &f, 0) < 0) return -1;
    if (f.number == 1 && f.wire == VARINT) r->id = f.v;
    else if (f.number >= TM_ERROR && f.number <= TM_ACK && f.wire == LEN) {
      if (get_body(r, f.number, f.b) < 0) return -1;
    }
  }
  return 0;
}

/* Copies b to *store as a C string and moves *store past it. */
static const char *copy_string(char **store, struct tm_bytes b) {
  char *s = *store;
  memcpy(s, b.p, b.n);
  s[b.n] = 0;
  *store += b.n + 1;
  return s;
}

/* A TmNode, its name copied to *store. */
static int get_node(struct tm_bytes raw, struct tm_node *node, char **store) {
  struct tm_bytes name = {"", 0};
  memset(node, 0, sizeof *node);
  struct slots s = {.ints = {[1] = &node->index, [3] = &node->slots, [4] = &node->first_vnode},
                    .bytes = {[2] = &name}};
  if (get_message(raw, &s) < 0) return -1;
  node->name = copy_string(store, name);
  return 0;
}

int tm_nodes_parse(struct tm_bytes raw, struct tm_nodes *nodes) {
  int count = 0;
  struct field f;
  memset(nodes, 0, sizeof *nodes);
  for (struct reader r = reader_of(raw); r.p < r.end;) {
    if (get_field(&r, &f, 0) < 0) return -1;
    if (f.number == 1 && f.wire == LEN) count++;
  }
  /* A string and its NUL take no more room than the field that held it. */
  nodes->store = malloc(raw.n + 1);
  nodes->node = calloc((size_t)count + 1, sizeof *nodes->node);
  if (!nodes->store || !nodes->node) return -2;
  char *store = nodes->store;
  nodes->job_id = "";
  for (struct reader r = reader_of(raw); r.p < r.end;) {
    get_field(&r, &f, 0);
    if (f.number == 1 && f.wire == LEN) {
      if (get_node(f.b, &nodes->node[nodes->n++], &store) < 0) return -1;
    } else if (f.number == 2 && f.wire == LEN) {
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

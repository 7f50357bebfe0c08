/* Protobuf's wire format by hand (pbwire.h). */
#include <string.h>

#include "pbwire.h"

size_t pb_varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}

unsigned char *pb_put_varint(unsigned char *p, uint64_t v) {
  for (; v >= 0x80; v >>= 7) *p++ = (unsigned char)(v | 0x80);
  *p++ = (unsigned char)v;
  return p;
}

size_t pb_int_size(int64_t v) { return v ? 1 + pb_varint_size((uint64_t)v) : 0; }

unsigned char *pb_put_int(unsigned char *p, int field, int64_t v) {
  if (!v) return p;
  p = pb_put_varint(p, (uint64_t)field << 3 | PB_VARINT);
  return pb_put_varint(p, (uint64_t)v);
}

size_t pb_len_size(size_t n) { return 1 + pb_varint_size(n) + n; }

unsigned char *pb_put_len(unsigned char *p, int field, size_t n) {
  p = pb_put_varint(p, (uint64_t)field << 3 | PB_LEN);
  return pb_put_varint(p, n);
}

unsigned char *pb_put_bytes(unsigned char *p, int field, const void *data, size_t n) {
  p = pb_put_len(p, field, n);
  memcpy(p, data, n);
  return p + n;
}

size_t pb_text_size(size_t n) { return n ? pb_len_size(n) : 0; }

unsigned char *pb_put_text(unsigned char *p, int field, const void *data, size_t n) {
  return n ? pb_put_bytes(p, field, data, n) : p;
}

int pb_get_varint(struct pb_reader *r, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
    unsigned char byte = *r->p++;
    *v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return 0;
  }
  return -1;
}

int pb_skip(struct pb_reader *r, size_t n) {
  if ((size_t)(r->end - r->p) < n) return -1;
  r->p += n;
  return 0;
}

int pb_get_field(struct pb_reader *r, struct pb_field *f, int depth) {
  uint64_t tag;
  if (pb_get_varint(r, &tag) < 0 || tag >> 3 == 0 || tag >> 3 > 0x1fffffff) return -1;
  f->number = (int)(tag >> 3);
  f->wire = (int)(tag & 7);
  switch (f->wire) {
  case PB_VARINT:
    return pb_get_varint(r, &f->v);
  case PB_FIXED64:
    return pb_skip(r, 8);
  case PB_FIXED32:
    return pb_skip(r, 4);
  case PB_LEN:
    if (pb_get_varint(r, &f->v) < 0 || f->v > (uint64_t)(r->end - r->p)) return -1;
    f->b.p = (const char *)r->p;
    f->b.n = (size_t)f->v;
    r->p += f->v;
    return 0;
  case PB_GROUP_START:
    if (depth >= 32) return -1;
    for (;;) {
      struct pb_field inner;
      if (pb_get_field(r, &inner, depth + 1) < 0) return -1;
      if (inner.wire == PB_GROUP_END) return inner.number == f->number ? 0 : -1;
    }
  case PB_GROUP_END:
    return depth > 0 ? 0 : -1;
  default:
    return -1;
  }
}

struct pb_reader pb_reader_of(struct pb_bytes b) {
  return (struct pb_reader){(const unsigned char *)b.p, (const unsigned char *)b.p + b.n};
}

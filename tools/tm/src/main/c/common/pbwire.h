/*
 * Protobuf's wire format, by hand, for the native programs (berth-tm, berth-cmd): a frame is a
 * varint length and the message; a message is fields, each a tag (field number << 3 | wire type)
 * and a value. Writers leave out fields at their default, as protobuf-java does in proto3; the
 * reader skips unknown fields of every wire type, as protobuf-java does.
 */
#ifndef BERTH_PBWIRE_H
#define BERTH_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_GROUP_START = 3, PB_GROUP_END = 4, PB_FIXED32 = 5 };

/* Bytes inside a received frame: not NUL-terminated, valid while the frame is. */
struct pb_bytes {
  const char *p;
  size_t n;
};

/*
 * ---- writing: each *_size says how many bytes the matching pb_put_* writes for a field of
 * number 1 to 15, whose tag is one byte; a larger number's tag takes pb_varint_size(field << 3).
 */

size_t pb_varint_size(uint64_t v);
unsigned char *pb_put_varint(unsigned char *p, uint64_t v);
/* int32 and uint64 fields, left out at 0; a negative int32 takes ten bytes, as in protobuf. */
size_t pb_int_size(int64_t v);
unsigned char *pb_put_int(unsigned char *p, int field, int64_t v);
/* A length-delimited field holding n bytes: its tag and length (pb_put_len), then the bytes. */
size_t pb_len_size(size_t n);
unsigned char *pb_put_len(unsigned char *p, int field, size_t n);
unsigned char *pb_put_bytes(unsigned char *p, int field, const void *data, size_t n);
/* A string or bytes field, left out when empty. */
size_t pb_text_size(size_t n);
unsigned char *pb_put_text(unsigned char *p, int field, const void *data, size_t n);

/* ---- reading ---- */

struct pb_reader {
  const unsigned char *p, *end;
};

/* One field: its number, wire type and value (varint in v, length-delimited in b). */
struct pb_field {
  int number, wire;
  uint64_t v;
  struct pb_bytes b;
};

int pb_get_varint(struct pb_reader *r, uint64_t *v);
int pb_skip(struct pb_reader *r, size_t n);
/* The next field; a group (a deprecated wire type, but still valid) is skipped as a whole. */
int pb_get_field(struct pb_reader *r, struct pb_field *f, int depth);
struct pb_reader pb_reader_of(struct pb_bytes b);

#endif

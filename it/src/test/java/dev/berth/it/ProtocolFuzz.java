package dev.berth.it;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.berth.proto.AlterJob;
import dev.berth.proto.Attribute;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.HoldJob;
import dev.berth.proto.Manage;
import dev.berth.proto.ReleaseJob;
import dev.berth.proto.Request;
import dev.berth.proto.SignalJob;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatNodes;
import dev.berth.proto.StatQueues;
import dev.berth.proto.StatServer;
import dev.berth.proto.SubmitJob;
import dev.berth.proto.TraceJob;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Client-protocol input from a seed: random bytes, broken frames (bad varints, truncations, wrong
 * and huge declared lengths, flipped bytes) and valid-looking requests with garbage in them
 * (unknown fields, values of unknown enums, odd strings). The same seed gives the same cases.
 */
final class ProtocolFuzz {
  /** One case: what the client sends before it stops sending, and what kind of case it is. */
  record Case(String kind, byte[] bytes) {}

  private static final List<String> WORDS =
      List.of(
          "",
          "1",
          "1.itsrv",
          "999999999999.itsrv",
          "2[].itsrv",
          "batch",
          "root",
          "itsrv",
          "scheduling",
          "query_other_jobs",
          "comment",
          "Resource_List",
          "walltime",
          "nodes",
          "Job_Name",
          "Hold_Types",
          "SIGKILL",
          "-1",
          "9",
          "*",
          "..",
          "a=b,c",
          "\u00e9\u65e5\u672c",
          "\0",
          "%s%n");

  private final Random random;

  ProtocolFuzz(long seed) {
    this.random = new Random(seed);
  }

  Case next() {
    return switch (random.nextInt(10)) {
      case 0 -> new Case("random bytes", bytes(random.nextInt(300)));
      case 1 -> new Case("valid requests", frames(1 + random.nextInt(3)));
      case 2 -> new Case("flipped bytes", flip(frames(1)));
      case 3 -> new Case("truncated frame", truncate(frames(1 + random.nextInt(2))));
      case 4 -> new Case("wrong declared length", wrongLength());
      case 5 -> new Case("huge declared length", hugeLength());
      case 6 -> new Case("bad varint", badVarint());
      case 7 -> new Case("unknown fields", frame(concat(body(), unknownFields())));
      case 8 -> new Case("garbage in the body", frame(insertGarbage(body())));
      default -> new Case("mixed", concat(next().bytes(), next().bytes(), next().bytes()));
    };
  }

  private byte[] frames(int n) {
    byte[] all = new byte[0];
    for (int i = 0; i < n; i++) {
      all = concat(all, frame(body()));
    }
    return all;
  }

  private byte[] body() {
    return request().toByteArray();
  }

  /** A request of any type with random, mostly meaningless, contents. */
  Request request() {
    Request.Builder r = Request.newBuilder().setId(random.nextLong());
    switch (random.nextInt(12)) {
      case 0 -> r.setStatServer(StatServer.getDefaultInstance());
      case 1 ->
          r.setStatJobs(
              StatJobs.newBuilder().addAllJobIds(words()).setIncludeSubjobs(random.nextBoolean()));
      case 2 -> r.setStatQueues(StatQueues.newBuilder().addAllNames(words()));
      case 3 -> r.setStatNodes(StatNodes.newBuilder().addAllNames(words()));
      case 4 -> r.setTraceJob(TraceJob.newBuilder().setJobId(word()));
      case 5 -> r.setDelete(DeleteJob.newBuilder().setJobId(word()).setPurge(random.nextBoolean()));
      case 6 -> r.setHold(HoldJob.newBuilder().setJobId(word()).setHoldTypes(word()));
      case 7 -> r.setRelease(ReleaseJob.newBuilder().setJobId(word()).setHoldTypes(word()));
      case 8 -> r.setSignal(SignalJob.newBuilder().setJobId(word()).setSignal(word()));
      case 9 -> r.setAlter(AlterJob.newBuilder().setJobId(word()).addAllAttributes(attributes()));
      case 10 ->
          r.setSubmit(
              SubmitJob.newBuilder()
                  .addAllAttributes(attributes())
                  .setScript(ByteString.copyFrom(bytes(random.nextInt(200))))
                  .setSubmissionId(word()));
      default ->
          r.setManage(
              Manage.newBuilder()
                  .setCommandValue(random.nextInt(8)) // 6 and 7 are no command at all
                  .setObjectTypeValue(random.nextInt(4))
                  .addAllNames(words())
                  .addAllAttributes(attributes()));
    }
    return r.build();
  }

  private List<Attribute> attributes() {
    return IntStream.range(0, random.nextInt(3))
        .mapToObj(
            unused ->
                Attribute.newBuilder()
                    .setName(word())
                    .setResource(word())
                    .setValue(word())
                    .setOpValue(random.nextInt(5))
                    .build())
        .toList();
  }

  private List<String> words() {
    return IntStream.range(0, random.nextInt(3)).mapToObj(unused -> word()).toList();
  }

  private String word() {
    if (random.nextInt(4) > 0) {
      return WORDS.get(random.nextInt(WORDS.size()));
    }
    StringBuilder s = new StringBuilder();
    int length = random.nextInt(8) == 0 ? 2000 : random.nextInt(20);
    for (int i = 0; i < length; i++) {
      s.appendCodePoint(random.nextInt(4) == 0 ? random.nextInt(0x3000) : 'a' + random.nextInt(26));
    }
    return s.toString();
  }

  /** Fields no Request has, of every wire type, some of them malformed. */
  private byte[] unknownFields() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    try {
      for (int i = 1 + random.nextInt(4); i > 0; i--) {
        int field = 100 + random.nextInt(1 << 20);
        int wireType = random.nextInt(8); // 6 and 7 are no wire type
        c.writeUInt32NoTag(field << 3 | wireType);
        switch (wireType) {
          case 0 -> c.writeUInt64NoTag(random.nextLong());
          case 1 -> c.writeFixed64NoTag(random.nextLong());
          case 2 -> c.writeByteArrayNoTag(bytes(random.nextInt(40)));
          case 5 -> c.writeFixed32NoTag(random.nextInt());
          default -> c.writeRawBytes(bytes(random.nextInt(4))); // groups and worse
        }
      }
      c.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private byte[] insertGarbage(byte[] body) {
    int at = random.nextInt(body.length + 1);
    return concat(
        Arrays.copyOfRange(body, 0, at),
        bytes(1 + random.nextInt(8)),
        Arrays.copyOfRange(body, at, body.length));
  }

  private byte[] flip(byte[] stream) {
    for (int i = 1 + random.nextInt(4); i > 0 && stream.length > 0; i--) {
      stream[random.nextInt(stream.length)] ^= (byte) (1 + random.nextInt(255));
    }
    return stream;
  }

  private byte[] truncate(byte[] stream) {
    return Arrays.copyOf(stream, random.nextInt(stream.length));
  }

  private byte[] wrongLength() {
    byte[] body = body();
    long declared = Math.max(0, body.length + random.nextInt(200) - 100);
    return concat(varint(declared), body);
  }

  private byte[] hugeLength() {
    long declared = (16L << 20) + 1 + (random.nextLong() >>> 29); // past the limit, up to 2^35
    return concat(varint(declared), bytes(random.nextInt(100)));
  }

  private byte[] badVarint() {
    byte[] b = bytes(5 + random.nextInt(6));
    for (int i = 0; i < b.length; i++) {
      b[i] |= (byte) 0x80;
    }
    return b;
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static byte[] frame(byte[] body) {
    return concat(varint(body.length), body);
  }

  private static byte[] varint(long v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (v >= 0x80) {
      out.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write((int) v);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}

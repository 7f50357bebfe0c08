package dev.berth.mom.tm;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmSpawn;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The body of one task-manager request, read under its connection's budget ({@link TmBudget}): its
 * bytes are taken as they arrive, in chunks that grow while the sender keeps sending, so that what
 * a connection holds follows what it sent, never the length it announced. Before the bytes are
 * parsed, the request is charged what parsing and keeping it costs besides them ({@link
 * TmLimits#STRING_COST} for each argument and variable of a spawn), so that a spawn of a hundred
 * thousand empty variables, some twenty times its size once parsed and copied, is refused unparsed.
 */
final class TmFrame {
  /** The first chunk of a body; each next one is twice the last, up to {@link #MAX_CHUNK}. */
  static final int FIRST_CHUNK = 4 << 10;

  static final int MAX_CHUNK = 64 << 10;

  private TmFrame() {}

  /** A request that cannot be taken: malformed, or costing more than one request may. */
  static final class Bad extends Exception {
    private static final long serialVersionUID = 1L;

    Bad(String why) {
      super(why, null, false, false);
    }
  }

  /** A request, and the bytes of its connection's budget it holds until it is done with. */
  record Read(TmRequest request, long held) {}

  /**
   * Reads and parses a body of {@code size} bytes from {@code in}, taking its cost from {@code
   * budget} (waiting for room until {@code deadline}, {@link System#nanoTime()}); what it took is
   * given back if it fails.
   */
  static Read read(
      InputStream in, int size, TmBudget.Connection budget, long deadline, int frameBytes)
      throws IOException, TmBudget.Refused, Bad {
    List<byte[]> chunks = new ArrayList<>();
    long held = 0;
    boolean read = false;
    try {
      int next = FIRST_CHUNK;
      for (int got = 0; got < size; got += next, next = Math.min(2 * next, MAX_CHUNK)) {
        int n = Math.min(next, size - got);
        budget.take(n, deadline); // before the bytes are in memory
        held += n;
        byte[] chunk = new byte[n];
        if (in.readNBytes(chunk, 0, chunk.length) < chunk.length) {
          throw new EOFException("the connection ended inside a request");
        }
        chunks.add(chunk);
      }
      int strings = strings(stream(chunks));
      long cost = size + (long) strings * TmLimits.STRING_COST;
      if (cost > frameBytes) {
        throw new Bad(
            "a spawn of "
                + size
                + " bytes with "
                + strings
                + " arguments and environment variables counts as "
                + cost
                + " bytes ("
                + TmLimits.STRING_COST
                + " bytes each besides its own), over the limit of "
                + TmLimits.size(frameBytes));
      }
      budget.take(cost - size, deadline);
      held = cost;
      TmRequest request = TmRequest.parseFrom(stream(chunks));
      read = true;
      return new Read(request, held);
    } catch (InvalidProtocolBufferException e) {
      throw new Bad("malformed request: " + e.getMessage());
    } finally {
      if (!read) {
        budget.release(held);
      }
    }
  }

  private static InputStream stream(List<byte[]> chunks) {
    return new SequenceInputStream(
        Collections.enumeration(chunks.stream().map(ByteArrayInputStream::new).toList()));
  }

  /** The arguments and environment variables of the spawns in a request, counted unparsed. */
  private static int strings(InputStream request) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(request);
    int count = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (WireFormat.getTagFieldNumber(tag) == TmRequest.SPAWN_FIELD_NUMBER
          && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        int outer = in.pushLimit(in.readRawVarint32());
        for (int t = in.readTag(); t != 0; t = in.readTag()) {
          int field = WireFormat.getTagFieldNumber(t);
          if (field == TmSpawn.ARGV_FIELD_NUMBER || field == TmSpawn.ENV_FIELD_NUMBER) {
            count++;
          }
          in.skipField(t);
        }
        in.popLimit(outer);
      } else {
        in.skipField(tag);
      }
    }
    return count;
  }
}

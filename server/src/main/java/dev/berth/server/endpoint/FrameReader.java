package dev.berth.server.endpoint;

import dev.berth.proto.Error;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reassembles length-delimited frames (a varint length, then that many bytes) from a non-blocking
 * channel. A length over the limit or a malformed length is reported before any of the body is
 * buffered, so a hostile client cannot make the server allocate much.
 */
final class FrameReader {
  private static final int MAX_VARINT_BYTES = 5;

  private final int maxFrameBytes;
  private ByteBuffer buffer = ByteBuffer.allocate(4096);
  private int needed;

  FrameReader(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  record Frame(ByteBuffer bytes) {}

  static final class FrameException extends Exception {
    private static final long serialVersionUID = 1L;
    private final Error.Code code;

    FrameException(Error.Code code, String message) {
      super(message);
      this.code = code;
    }

    Error.Code code() {
      return code;
    }
  }

  /** Reads what is available; -1 at end of stream. */
  int readFrom(ReadableByteChannel channel) throws IOException {
    if (buffer.capacity() < needed) {
      grow(needed);
    } else if (!buffer.hasRemaining()) {
      grow(buffer.capacity() * 2);
    }
    return channel.read(buffer);
  }

  /** The next complete frame, or null if more bytes are needed. */
  Frame poll() throws FrameException {
    buffer.flip();
    try {
      long length = 0; // five varint bytes hold 35 bits: no overflow, no wrap to a small size
      int shift = 0;
      int pos = buffer.position();
      int i = 0;
      while (true) {
        if (i >= MAX_VARINT_BYTES) {
          throw new FrameException(Error.Code.PROTOCOL, "malformed frame length");
        }
        if (i >= buffer.remaining()) {
          return null; // length not complete yet
        }
        byte b = buffer.get(pos + i);
        length |= (long) (b & 0x7f) << shift;
        shift += 7;
        i++;
        if ((b & 0x80) == 0) {
          break;
        }
      }
      if (length > maxFrameBytes) {
        throw new FrameException(
            Error.Code.PROTOCOL,
            "request frame of "
                + length
                + " bytes exceeds the limit of "
                + maxFrameBytes
                + " bytes");
      }
      if (buffer.remaining() < i + length) {
        needed = i + (int) length;
        return null;
      }
      needed = 0;
      byte[] body = new byte[(int) length];
      buffer.position(pos + i);
      buffer.get(body);
      return new Frame(ByteBuffer.wrap(body));
    } finally {
      buffer.compact();
    }
  }

  /** Grows the buffer (in write mode) keeping the bytes already read. */
  private void grow(int capacity) {
    ByteBuffer bigger = ByteBuffer.allocate(Math.max(capacity, buffer.capacity()));
    buffer.flip();
    bigger.put(buffer);
    buffer = bigger;
  }
}

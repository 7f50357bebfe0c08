package dev.berth.server.endpoint;

import dev.berth.proto.Error;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reassembles length-delimited frames (a varint length, then that many bytes) from a non-blocking
 * channel. The buffer grows only as bytes arrive: it starts small and doubles when full, never past
 * the frame being read, so what a connection costs follows what its client sent, not the length it
 * declared. A length over the limit or a malformed length is reported before any of the body is
 * buffered. The caller decides whether the buffer may grow ({@link #growth()}, {@link #grow()}), so
 * that it can charge the bytes to someone first.
 */
final class FrameReader {
  /** What a connection holds before it sends anything: room for a length and a small request. */
  static final int FIRST_CAPACITY = 4096;

  private static final int MAX_VARINT_BYTES = 5;

  private final int maxFrameBytes;
  private ByteBuffer buffer = ByteBuffer.allocate(0);

  /** The size of the frame being read, its length prefix included; 0 while not known. */
  private int needed;

  FrameReader(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  record Frame(ByteBuffer bytes) {
    int size() {
      return bytes.remaining();
    }
  }

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

  /** The bytes this reader holds (its buffer's capacity). */
  int capacity() {
    return buffer.capacity();
  }

  /** Whether part of a frame (or a whole one not yet taken) is buffered. */
  boolean hasBytes() {
    return buffer.position() > 0;
  }

  /**
   * How many bytes the buffer has to grow by before the next read: none while it has room; when
   * full, enough to double it, but not past the end of the frame being read.
   */
  int growth() {
    if (buffer.hasRemaining()) {
      return 0;
    }
    int capacity = buffer.capacity();
    if (capacity == 0) {
      return FIRST_CAPACITY;
    }
    long doubled = 2L * capacity;
    long target = needed > capacity ? Math.min(needed, doubled) : doubled;
    return (int) (Math.min(target, Integer.MAX_VALUE - 8) - capacity);
  }

  /** Grows the buffer by {@link #growth()}, keeping the bytes already read. */
  void grow() {
    ByteBuffer bigger = ByteBuffer.allocate(buffer.capacity() + growth());
    buffer.flip();
    bigger.put(buffer);
    buffer = bigger;
  }

  /**
   * Returns the buffer to its first size once it is empty, so that one large request does not pin
   * its memory for the life of the connection. The number of bytes given back.
   */
  int shrink() {
    int capacity = buffer.capacity();
    if (buffer.position() > 0 || capacity <= FIRST_CAPACITY) {
      return 0;
    }
    buffer = ByteBuffer.allocate(FIRST_CAPACITY);
    return capacity - FIRST_CAPACITY;
  }

  /** Reads what is available and fits; -1 at end of stream. */
  int readFrom(ReadableByteChannel channel) throws IOException {
    return buffer.hasRemaining() ? channel.read(buffer) : 0;
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
}

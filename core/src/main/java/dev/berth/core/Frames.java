package dev.berth.core;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Length-delimited Protobuf frames (a varint length, then the message) on a blocking stream, as the
 * client socket, the relay's connection and output deliveries carry them, with a bound on what one
 * frame may make the reader hold.
 */
public final class Frames {
  /** Replies can be large (qstat -f of 100,000 jobs), but not unbounded. */
  public static final int REPLY_LIMIT = 512 << 20;

  private Frames() {}

  /** The next frame, or null at a clean end of stream (before its first byte). */
  public static <T> T read(InputStream in, Parser<T> parser, int maxBytes) throws IOException {
    int size = length(in, maxBytes);
    return size < 0 ? null : body(in, size, parser);
  }

  /**
   * The length of the next frame, or -1 at a clean end of stream (before its first byte), for a
   * reader that must make room for the frame before it reads the body ({@link #body}).
   */
  public static int length(InputStream in, int maxBytes) throws IOException {
    int first = in.read();
    if (first < 0) {
      return -1;
    }
    int size = CodedInputStream.readRawVarint32(first, in);
    if (size < 0 || size > maxBytes) {
      throw new IOException("a frame of " + size + " bytes is over the limit of " + maxBytes);
    }
    return size;
  }

  /**
   * The body of a frame of {@code size} bytes ({@link #length}); what it holds grows with the bytes
   * that arrive, not with the size announced.
   */
  public static <T> T body(InputStream in, int size, Parser<T> parser) throws IOException {
    byte[] bytes = in.readNBytes(size);
    if (bytes.length < size) {
      throw new EOFException("the stream ended inside a frame");
    }
    return parser.parseFrom(bytes);
  }

  public static void write(OutputStream out, MessageLite message) throws IOException {
    message.writeDelimitedTo(out);
    out.flush();
  }
}

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
    int first = in.read();
    if (first < 0) {
      return null;
    }
    int size = CodedInputStream.readRawVarint32(first, in);
    if (size < 0 || size > maxBytes) {
      throw new IOException("a frame of " + size + " bytes is over the limit of " + maxBytes);
    }
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

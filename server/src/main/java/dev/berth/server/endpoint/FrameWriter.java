package dev.berth.server.endpoint;

import com.google.protobuf.CodedOutputStream;
import dev.berth.proto.Response;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;
import java.util.Deque;

/** Answers waiting to be written to a non-blocking channel, each with its varint length. */
final class FrameWriter {
  private final Deque<ByteBuffer> pending = new ArrayDeque<>();
  private long held;

  /** Queues {@code response}; the number of bytes it holds until written. */
  int add(Response response) {
    int size = response.getSerializedSize();
    byte[] bytes = new byte[CodedOutputStream.computeUInt32SizeNoTag(size) + size];
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      out.writeUInt32NoTag(size);
      response.writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("serializing into an array cannot fail", e);
    }
    pending.add(ByteBuffer.wrap(bytes));
    held += bytes.length;
    return bytes.length;
  }

  /** Whether nothing is waiting to be written. */
  boolean isEmpty() {
    return pending.isEmpty();
  }

  /** The bytes of the answers not yet completely written (a partly written one counts whole). */
  long held() {
    return held;
  }

  /** Writes as much as the channel takes; the number of bytes written. */
  long writeTo(WritableByteChannel channel) throws IOException {
    long written = 0;
    while (!pending.isEmpty()) {
      ByteBuffer head = pending.peek();
      written += channel.write(head);
      if (head.hasRemaining()) {
        break;
      }
      pending.poll();
      held -= head.capacity();
    }
    return written;
  }
}

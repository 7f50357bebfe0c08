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

  void add(Response response) {
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
  }

  /** Writes as much as the channel takes; true when nothing is left. */
  boolean writeTo(WritableByteChannel channel) throws IOException {
    while (!pending.isEmpty()) {
      ByteBuffer head = pending.peek();
      channel.write(head);
      if (head.hasRemaining()) {
        return false;
      }
      pending.poll();
    }
    return true;
  }
}

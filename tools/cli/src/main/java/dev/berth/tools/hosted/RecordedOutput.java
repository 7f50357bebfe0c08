package dev.berth.tools.hosted;

import com.google.protobuf.ByteString;
import dev.berth.proto.CommandReply;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a hosted command prints on its standard output and error, kept in the order it was written,
 * so that the client, writing it back to its own descriptors, interleaves the two as the command
 * would have.
 */
final class RecordedOutput {
  private final List<CommandReply.Output> chunks = new ArrayList<>();
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private boolean pendingIsErr;
  private final PrintStream out = new PrintStream(stream(false), false, StandardCharsets.UTF_8);
  private final PrintStream err = new PrintStream(stream(true), false, StandardCharsets.UTF_8);

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  /** Everything written, in order. */
  List<CommandReply.Output> chunks() {
    out.flush();
    err.flush();
    cut();
    return chunks;
  }

  private OutputStream stream(boolean isErr) {
    return new OutputStream() {
      @Override
      public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        if (pendingIsErr != isErr) {
          cut();
          pendingIsErr = isErr;
        }
        pending.write(b, off, len);
      }
    };
  }

  private void cut() {
    if (pending.size() > 0) {
      chunks.add(
          CommandReply.Output.newBuilder()
              .setStderr(pendingIsErr)
              .setData(ByteString.copyFrom(pending.toByteArray()))
              .build());
      pending.reset();
    }
  }
}

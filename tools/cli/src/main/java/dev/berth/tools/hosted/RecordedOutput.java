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
 * would have. It keeps at most its limit: what is printed past it is dropped, and the command's
 * output is then refused as a whole ({@link #overflowed}).
 */
final class RecordedOutput {
  /** The most kept in one piece: a long output grows by pieces, never by copying all of it. */
  private static final int PIECE = 1 << 20;

  private final long limit;
  private final List<CommandReply.Output> chunks = new ArrayList<>();
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private long kept;
  private boolean overflowed;
  private boolean pendingIsErr;
  private final PrintStream out = new PrintStream(stream(false), false, StandardCharsets.UTF_8);
  private final PrintStream err = new PrintStream(stream(true), false, StandardCharsets.UTF_8);

  /**
   * @param limit the most bytes kept, standard output and error together
   */
  RecordedOutput(long limit) {
    this.limit = limit;
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  /** Whether the command printed more than the limit. */
  boolean overflowed() {
    out.flush();
    err.flush();
    return overflowed;
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
        if (overflowed || kept + len > limit) {
          overflowed = true;
          return;
        }
        if (pendingIsErr != isErr || pending.size() >= PIECE) {
          cut();
          pendingIsErr = isErr;
        }
        pending.write(b, off, len);
        kept += len;
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

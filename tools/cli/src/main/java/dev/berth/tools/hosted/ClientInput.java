package dev.berth.tools.hosted;

import dev.berth.proto.RunCommand;
import java.io.ByteArrayInputStream;
import java.io.InputStream;

/**
 * The client's standard input: what it sent, or, before it sent any, a stream whose first read ends
 * the run, asking for it (or, on a terminal, for the Java command, which can prompt).
 */
final class ClientInput {
  private ClientInput() {}

  static InputStream of(RunCommand command) {
    if (command.getStdinGiven()) {
      return new ByteArrayInputStream(command.getStdin().toByteArray());
    }
    return new InputStream() {
      @Override
      public int read() {
        throw missing();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        throw missing();
      }

      private NeedsInput missing() {
        return command.getTerminal() ? NeedsInput.interaction() : NeedsInput.stdin();
      }
    };
  }
}

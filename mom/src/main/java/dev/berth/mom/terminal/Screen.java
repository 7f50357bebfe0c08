package dev.berth.mom.terminal;

import java.io.IOException;

/**
 * The user's side of an interactive session, for what the mom itself has to show there: task output
 * that has no connection of its own, and notices such as a walltime kill. Writes block while the
 * client does not read; callers that must not wait write through a queue of their own.
 */
public interface Screen {
  void write(byte[] data) throws IOException;
}

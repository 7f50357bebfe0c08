package dev.berth.tools;

import dev.berth.client.Invocation;

/** One command-line tool: runs with its invocation and returns the process exit status. */
@FunctionalInterface
public interface Command {
  int run(Invocation invocation);
}

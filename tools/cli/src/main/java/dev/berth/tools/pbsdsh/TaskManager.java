package dev.berth.tools.pbsdsh;

import dev.berth.client.Invocation;
import dev.berth.client.TmClient;
import dev.berth.client.TmException;
import dev.berth.proto.TmOutput;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/** Reaching the task manager of the job a command runs in, and waiting for its answers. */
public final class TaskManager {
  private TaskManager() {}

  /** The task manager cannot be reached; the message says why, for {@code program: message}. */
  public static final class Unreachable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreachable(String message) {
      super(message);
    }
  }

  /** Connects to the socket {@code $BERTH_TM_SOCKET} names. */
  public static TmClient connect(Invocation invocation, Consumer<TmOutput> output)
      throws Unreachable {
    String socket = invocation.env().get(TmContext.SOCKET_VARIABLE);
    if (socket == null || socket.isEmpty()) {
      throw new Unreachable(
          "not inside a Berth job (" + TmContext.SOCKET_VARIABLE + " is not set)");
    }
    try {
      return TmClient.connect(Path.of(socket), output);
    } catch (IOException | RuntimeException e) {
      throw new Unreachable(
          "cannot connect to the job's task manager at " + socket + ": " + describe(e));
    }
  }

  /** The future's value, or the reason it failed: the server's refusal or a broken connection. */
  public static <T> T await(CompletableFuture<T> future) throws TmException, IOException {
    try {
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TmException refused) {
        throw refused;
      }
      if (cause instanceof IOException broken) {
        throw broken;
      }
      throw e;
    }
  }

  /** An exception's message, or its class when it has none. */
  public static String describe(Throwable e) {
    String message = e.getMessage();
    return message == null || message.isEmpty() ? e.getClass().getSimpleName() : message;
  }
}

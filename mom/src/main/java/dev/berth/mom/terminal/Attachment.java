package dev.berth.mom.terminal;

import dev.berth.mom.os.Pty;
import java.util.concurrent.CompletionStage;

/**
 * A job's answer to a client that attached: the terminal its session runs on, the job's exit status
 * once the session's shell has ended, and what tells the job that its user went away; or why it
 * does not take the client.
 */
public record Attachment(Pty pty, CompletionStage<Integer> exit, Runnable hangup, String refusal) {
  public static Attachment refused(String why) {
    return new Attachment(null, null, null, why);
  }

  public static Attachment of(Pty pty, CompletionStage<Integer> exit, Runnable hangup) {
    return new Attachment(pty, exit, hangup, null);
  }
}

package dev.berth.mom.lifecycle;

import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Pty;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.output.Outlet;
import dev.berth.mom.terminal.Attachment;
import dev.berth.mom.terminal.Screen;
import dev.berth.proto.Job;
import dev.berth.proto.WindowSize;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * An interactive job's terminal (qsub -I): the job waits, ready, for its owner's qsub to attach;
 * then its shell starts on a new terminal whose other side is qsub's, and the mom's notices to the
 * owner go to that screen. When qsub goes away the terminal hangs up, and the job's processes are
 * hung up as a login's are; when the shell ends, qsub hears the job's exit status. A batch job has
 * none of this.
 */
final class TerminalHook {
  private final Job job;
  private final String node;

  /** The terminal, once qsub attached; null before. */
  private Pty pty;

  /** The user's side, as qsub attached it; null before. */
  private Screen userScreen;

  /** The mom's notices and the tasks' output to the user, written off the job's actor. */
  private Outlet screen;

  /** Completed with the job's exit status when its session's shell has ended. */
  private final CompletableFuture<Integer> sessionEnd = new CompletableFuture<>();

  private boolean hungUp;

  TerminalHook(Job job, String node) {
    this.job = job;
    this.node = node;
  }

  /** Whether the job's session is to wait for its qsub -I, which has not attached yet. */
  boolean awaitsSession() {
    return job.hasInteractive() && pty == null;
  }

  /** Whether the permit {@code a} came with is the job owner's; if not, qsub hears so. */
  boolean owner(JobActor.Attach a) {
    if (a.user().equals(job.getEuser())) {
      return true;
    }
    a.reply()
        .complete(
            Attachment.refused(
                "the permit is for user " + a.user() + "; job " + job.getId() + " is not"));
    return false;
  }

  /**
   * Opens the session's terminal as qsub asks (window size, input passed through); {@code spec} on
   * it. A terminal that cannot open is refused to qsub, and the exception says why.
   */
  StartSpec open(JobActor.Attach a, StartSpec spec) throws IOException {
    try {
      pty = Pty.open();
      if (a.attach().hasWindow()) { // checked at the terminal port
        WindowSize window = a.attach().getWindow();
        pty.resize(window.getRows(), window.getColumns());
      }
      if (a.attach().getPassInput()) {
        pty.passInput();
      }
    } catch (IOException | RuntimeException e) {
      if (pty != null) {
        pty.close();
      }
      a.reply().complete(Attachment.refused("cannot open a terminal on " + node));
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
    userScreen = a.screen();
    return spec.onTerminal(pty.slave(), a.attach().getTerm());
  }

  /**
   * The session started as {@code session}, or did not (null): qsub gets the terminal, or hears why
   * not; {@code hangUp} is run when qsub goes away.
   */
  void started(JobActor.Attach a, JobProcess session, Runnable hangUp) {
    if (session == null) {
      a.reply().complete(Attachment.refused("the session could not start on " + node));
      pty.close();
      return;
    }
    screen = new Outlet("terminal-" + job.getId(), userScreenOutlet(), e -> {});
    a.reply().complete(Attachment.of(pty, sessionEnd, hangUp));
  }

  /** A second attach: the job has its session. */
  void refuseAgain(JobActor.Attach a) {
    a.reply().complete(Attachment.refused("job " + job.getId() + " has its session"));
  }

  /** The user's screen as an outlet's destination, or null before qsub attached (or for batch). */
  Outlet.Destination userScreenOutlet() {
    Screen s = userScreen;
    if (s == null) {
      return null;
    }
    return new Outlet.Destination() {
      @Override
      public void write(byte[] data) throws IOException {
        s.write(data);
      }

      @Override
      public void close() {} // closing the outlet leaves the session be
    };
  }

  /** Where the mom's notices to the owner go: the terminal, or null for the stderr file. */
  Outlet screen() {
    return screen;
  }

  /**
   * The terminal has hung up: whether the job's processes are to be hung up as a login's, which
   * they are unless the job is being killed already. Its obit's reason then says why it ended.
   */
  boolean hangUp(boolean killing) {
    if (killing) {
      return false;
    }
    hungUp = true;
    return true;
  }

  boolean hungUp() {
    return hungUp;
  }

  /** The session's shell has ended with {@code exitStatus}: qsub hears it, the screen closes. */
  void ended(int exitStatus) {
    sessionEnd.complete(exitStatus);
    if (screen != null) {
      screen.close();
    }
  }
}

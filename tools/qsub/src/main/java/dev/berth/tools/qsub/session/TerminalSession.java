package dev.berth.tools.qsub.session;

import com.google.protobuf.ByteString;
import dev.berth.core.ControlCharacters;
import dev.berth.core.Frames;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TerminalIn;
import dev.berth.proto.TerminalOut;
import dev.berth.proto.WindowSize;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;

/**
 * The terminal session of an interactive job, on a connection to its mother superior's terminal
 * port: qsub shows the permit, and once the mom says ready, the user's terminal (in raw mode) is
 * the job's: keystrokes go to the job, its output comes back, and a resized window is passed on.
 * The session ends when the mom sends the exit status of the job's shell or command, which becomes
 * qsub's own.
 *
 * <p>Standard input that is a terminal ending means the user's terminal is gone: qsub hangs up.
 * Standard input that is a file or a pipe (with {@code -x}) is sent as it is, and its end as one
 * Ctrl-D (0x04), which ends input on the job's terminal.
 */
final class TerminalSession {
  /** Torque's size when the real one cannot be had. */
  static final WindowSize DEFAULT_WINDOW =
      WindowSize.newBuilder().setRows(20).setColumns(80).build();

  /** The most a frame carries: 64 KiB of input or output, with room for its envelope. */
  static final int MAX_DATA = 64 << 10;

  private static final int FRAME_LIMIT = 1 << 20;
  private static final byte END_OF_INPUT = 0x04;

  private final String jobId;
  private final InputStream in;
  private final PrintStream out;
  private final PrintStream err;
  private final Terminal terminal;
  private final Voice voice;
  private final boolean waited;

  /** The raw mode, set on the input thread so that output need not wait for it. */
  private final CompletableFuture<Terminal.Handle> raw = new CompletableFuture<>();

  private Terminal.Handle resize = () -> {};
  private boolean begun;

  /** {@code waited}: whether the job's wait to start was said ({@link Voice#waiting}). */
  TerminalSession(
      String jobId,
      InputStream in,
      PrintStream out,
      PrintStream err,
      Terminal terminal,
      Voice voice,
      boolean waited) {
    this.jobId = jobId;
    this.in = in;
    this.out = out;
    this.err = err;
    this.terminal = terminal;
    this.voice = voice;
    this.waited = waited;
  }

  /** Runs the session on {@code socket} (closed at the end); returns qsub's exit status. */
  int run(Socket socket, TerminalAttach attach) {
    try (socket) {
      InputStream fromMom = new BufferedInputStream(socket.getInputStream(), MAX_DATA + 64);
      Sender toMom = new Sender(new BufferedOutputStream(socket.getOutputStream(), MAX_DATA + 64));
      toMom.send(TerminalIn.newBuilder().setAttach(attach).build());
      while (true) {
        TerminalOut frame = Frames.read(fromMom, TerminalOut.parser(), FRAME_LIMIT);
        if (frame == null) {
          return lost("the node closed it");
        }
        switch (frame.getBodyCase()) {
          case READY -> begin(toMom);
          case OUTPUT -> {
            frame.getOutput().writeTo(out);
            out.flush();
          }
          case REFUSED -> {
            restore();
            err.println(voice.program() + ": " + ControlCharacters.escape(frame.getRefused()));
            err.flush();
            return 1;
          }
          case EXIT_STATUS -> {
            restore();
            voice.ended(jobId, out, err);
            return exitStatus(frame.getExitStatus());
          }
          default -> {
            // a frame a newer mom sends that this qsub does not know: nothing to do with it
          }
        }
      }
    } catch (IOException e) {
      return lost(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    } finally {
      restore();
    }
  }

  /** The mom is ready: the user's terminal becomes the job's. */
  private void begin(Sender toMom) {
    if (begun) {
      return; // said twice: once is what counts
    }
    begun = true;
    voice.ready(jobId, waited, out, err);
    resize = terminal.onResize(() -> terminal.size().ifPresent(size -> window(toMom, size)));
    Thread pump =
        new Thread(
            () -> {
              raw.complete(terminal.raw());
              pump(toMom);
            },
            "qsub-input");
    pump.setDaemon(true); // blocked on a read of stdin when the session ends; never waited for
    pump.start();
  }

  /** Standard input to the job, until it ends or the connection does. */
  private void pump(Sender toMom) {
    byte[] buffer = new byte[MAX_DATA];
    boolean lineEnded = true; // what was sent last ended a line (or nothing was sent)
    try {
      while (true) {
        int n;
        try {
          n = in.read(buffer);
        } catch (IOException e) {
          n = -1; // standard input is gone: as its end
        }
        if (n < 0) {
          toMom.send(endOfInput(lineEnded));
          return;
        }
        if (n > 0) {
          toMom.send(TerminalIn.newBuilder().setInput(ByteString.copyFrom(buffer, 0, n)).build());
          lineEnded = buffer[n - 1] == '\n';
        }
      }
    } catch (IOException e) {
      // the connection is gone; the session's reader reports it
    }
  }

  /**
   * The end of standard input: a terminal's means the user is gone; a file's or pipe's is Ctrl-D on
   * the job's terminal, twice after a last line without its newline (the first only ends the line).
   */
  private TerminalIn endOfInput(boolean lineEnded) {
    if (terminal.isTerminal()) {
      return TerminalIn.newBuilder().setHangup(true).build();
    }
    byte[] end = lineEnded ? new byte[] {END_OF_INPUT} : new byte[] {END_OF_INPUT, END_OF_INPUT};
    return TerminalIn.newBuilder().setInput(ByteString.copyFrom(end)).build();
  }

  private static void window(Sender toMom, WindowSize size) {
    try {
      toMom.send(TerminalIn.newBuilder().setWindow(size).build());
    } catch (IOException e) {
      // the connection is gone; the session's reader reports it
    }
  }

  private int lost(String reason) {
    restore();
    err.println(voice.program() + ": lost the connection to job " + jobId + " (" + reason + ")");
    err.flush();
    return 1;
  }

  private void restore() {
    resize.close();
    if (begun) {
      raw.join().close(); // once set: restoring first would leave the terminal raw
    }
  }

  /**
   * qsub's exit status for the job's: 0-255 as it is; killed by signal N (256 + N) as a shell
   * reports it, 128 + N; anything else (the job failed on the node) 1.
   */
  static int exitStatus(int status) {
    if (status >= 0 && status <= 255) {
      return status;
    }
    if (status > ExitStatus.SIGNALLED && status < ExitStatus.killedBy(128)) {
      return 128 + (status - ExitStatus.SIGNALLED);
    }
    return 1;
  }

  /** Frames to the mom, from the reader, the input pump and the resize handler alike. */
  private static final class Sender {
    private final OutputStream out;

    Sender(OutputStream out) {
      this.out = out;
    }

    synchronized void send(TerminalIn frame) throws IOException {
      Frames.write(out, frame);
    }
  }
}

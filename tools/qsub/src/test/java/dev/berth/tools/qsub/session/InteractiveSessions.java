package dev.berth.tools.qsub.session;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.protobuf.ByteString;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Response;
import dev.berth.proto.Sealed;
import dev.berth.proto.WindowSize;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/** One qsub -I session in a test: its streams, its terminal, quick timings. */
final class InteractiveSessions {
  static final String JOB = "7.srv";
  static final String NODE = "n01";
  static final Sealed PERMIT =
      Sealed.newBuilder().setLetter(ByteString.copyFromUtf8("a permit for " + JOB)).build();
  static final WindowSize WINDOW = WindowSize.newBuilder().setRows(50).setColumns(132).build();
  static final InteractiveSession.Timing QUICK =
      new InteractiveSession.Timing(
          Duration.ofMillis(1),
          Duration.ofMillis(8),
          Duration.ofSeconds(30),
          Duration.ofMillis(200),
          Duration.ofSeconds(5));

  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  final FakeTerminal terminal;
  InputStream in = blocking();
  Voice voice = Voice.QSUB;
  InteractiveSession.Timing timing = QUICK;

  InteractiveSessions(FakeTerminal terminal) {
    this.terminal = terminal;
  }

  /** A user at a terminal of 50 rows and 132 columns. */
  static InteractiveSessions atTerminal() {
    return new InteractiveSessions(new FakeTerminal(true, WINDOW));
  }

  /** In Slurm's words ({@link Voice#slurm}), and saying a job waits once it is not started. */
  InteractiveSessions slurm(String program, boolean allocation) {
    voice = Voice.slurm(program, allocation, false);
    timing =
        new InteractiveSession.Timing(
            QUICK.firstPoll(), QUICK.maxPoll(), Duration.ZERO, QUICK.answer(), QUICK.connect());
    return this;
  }

  InteractiveSessions stdin(String text) {
    in = new ByteArrayInputStream(text.getBytes(UTF_8));
    return this;
  }

  int run(ScriptedServer server) {
    return run(server, () -> server);
  }

  int run(ScriptedServer server, InteractiveSession.Reconnect reconnect) {
    return new InteractiveSession(
            JOB,
            in,
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8),
            "xterm-256color",
            terminal,
            voice,
            timing)
        .run(server, reconnect);
  }

  String stdout() {
    return out.toString(UTF_8);
  }

  String stderr() {
    return err.toString(UTF_8);
  }

  /** The server's answer once the job runs and its mom takes the session at {@code address}. */
  static Response running(String address, ByteString caCertificates) {
    return Response.newBuilder()
        .setAttach(
            AttachReply.newBuilder()
                .setState("R")
                .setNode(NODE)
                .setAddress(address)
                .setPermit(PERMIT)
                .setCaCertificates(caCertificates))
        .build();
  }

  /** Standard input that never ends (a user who types nothing). */
  static InputStream blocking() {
    CountDownLatch never = new CountDownLatch(1);
    return new InputStream() {
      @Override
      public int read() {
        try {
          never.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return -1;
      }
    };
  }
}

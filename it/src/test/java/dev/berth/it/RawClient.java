package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Requests as a real user's own client would send them, bypassing every command: the test writes
 * the Request messages, and a relay process running as that user (SocketRelay, a JVM of its own)
 * carries their bytes to the server's socket and the replies back.
 */
final class RawClient {
  private RawClient() {}

  /** Sends {@code requests} on one connection as {@code user}; returns a reply for each. */
  static List<Response> send(String user, Path socket, List<Request> requests) throws IOException {
    try {
      Path classes =
          Path.of(SocketRelay.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      ByteArrayOutputStream frames = new ByteArrayOutputStream();
      for (Request r : requests) {
        r.writeDelimitedTo(frames);
      }
      String java = ProcessHandle.current().info().command().orElse("java");
      Process p =
          new ProcessBuilder(
                  "runuser",
                  "-u",
                  user,
                  "--",
                  java,
                  // a JVM that lives for a moment: C1 alone, the small collector
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-cp",
                  classes.toString(),
                  SocketRelay.class.getName(),
                  socket.toString(),
                  Integer.toString(requests.size()))
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(frames.toByteArray());
      }
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("the relay as " + user + " did not finish");
      }
      assertEquals(0, p.exitValue(), "the relay as " + user);
      List<Response> replies = new ArrayList<>();
      ByteArrayInputStream replyBytes = new ByteArrayInputStream(out);
      for (int i = 0; i < requests.size(); i++) {
        Response reply = Response.parseDelimitedFrom(replyBytes);
        if (reply == null) {
          fail("the server sent " + i + " replies to " + requests.size() + " requests");
        }
        replies.add(reply);
      }
      return replies;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}

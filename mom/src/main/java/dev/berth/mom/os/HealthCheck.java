package dev.berth.mom.os;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The site's node health check (Torque's node_check_script), run as root: output that starts with
 * ERROR (in any case) says the node is unwell, and is the reason; any other output, or none, says
 * it is well. Unlike Torque's, a check that does not finish in time counts as an error, so a hung
 * check cannot hide a hung node. Its output goes to a file, so that a child it leaves behind
 * holding the output open cannot hold the mom.
 */
public final class HealthCheck {
  /** Torque reads this much of the check's output. */
  static final int MAX_OUTPUT = 1023;

  private final Path script;
  private final Duration timeout;

  public HealthCheck(Path script, Duration timeout) {
    this.script = script;
    this.timeout = timeout;
  }

  /** Runs the check; the error it reports, or "" when the node is well. */
  public String run() {
    Path out = null;
    try {
      out = Files.createTempFile("berth-health", ".out");
      Process p =
          new ProcessBuilder(script.toString())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectOutput(out.toFile())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        return "ERROR: the health check "
            + script
            + " did not finish within "
            + timeout.toSeconds()
            + " s";
      }
      try (InputStream in = Files.newInputStream(out)) {
        return verdict(new String(in.readNBytes(MAX_OUTPUT), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      return "ERROR: the health check " + script + " cannot run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "ERROR: the health check " + script + " was interrupted";
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          // a temporary file left behind
        }
      }
    }
  }

  /** What the output says: the error (its lines joined by spaces), or "" for a well node. */
  static String verdict(String output) {
    String text = output.strip();
    if (!text.regionMatches(true, 0, "ERROR", 0, 5)) {
      return "";
    }
    return text.replaceAll("\\s*\\n\\s*", " ");
  }
}

package dev.berth.mom.output;

import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.TaskProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import org.slf4j.Logger;

/**
 * Task output that has no connection to go to, appended to the job's own stdout and stderr files on
 * the mother superior (Torque's demux). The files are written by a {@code cat} running as the job's
 * owner, started on first use, so the mom never opens a user's path as root.
 */
public final class JobOutput {
  private final StartSpec script;
  private final StatusFiles statusFile;

  /** Where a stream's writer leaves its starter status; the file's directory may be made. */
  public interface StatusFiles {
    Path of(String stream) throws IOException;
  }

  private final Launcher launcher;
  private final Logger log;
  private final Outlet.Destination terminal;
  private final Outlet[] outlets = new Outlet[3];

  /**
   * @param script the job script's start spec: who, and which files
   * @param statusFile where the writer for a stream ("stdout", "stderr") leaves its starter status
   * @param terminal an interactive job's terminal, where both streams go instead; or null
   */
  public JobOutput(
      StartSpec script,
      StatusFiles statusFile,
      Launcher launcher,
      Logger log,
      Outlet.Destination terminal) {
    this.script = script;
    this.statusFile = statusFile;
    this.launcher = launcher;
    this.log = log;
    this.terminal = terminal;
  }

  /** Appends {@code data} to the job's stdout (1) or stderr (2); {@code after} runs once it is. */
  public void write(int stream, byte[] data, Runnable after) {
    int target = stream == 2 && !script.joinStderr() ? 2 : 1;
    if (outlets[target] == null) {
      outlets[target] = open(target);
    }
    outlets[target].offer(data, after);
  }

  /** The writers finish what they have and exit. */
  public void close() {
    for (Outlet o : outlets) {
      if (o != null) {
        o.close();
      }
    }
  }

  private Outlet open(int stream) {
    Path file = stream == 1 ? script.stdout() : script.stderr();
    String name = stream == 1 ? "stdout" : "stderr";
    if (terminal != null) {
      return new Outlet(
          "job-output-" + name,
          terminal,
          e -> log.warn("cannot show task output on the job's terminal: {}", e.getMessage()));
    }
    if (file == null) {
      return discarding(name); // an interactive job whose terminal went with a mom restart
    }
    try {
      StartSpec spec =
          StartSpec.catTo(
              script.user(), script.gid(), file, script.umask(), true, statusFile.of(name));
      TaskProcess p = launcher.startPiped(spec);
      p.stdout().close();
      p.stderr().close();
      OutputStream in = p.stdin();
      return new Outlet(
          "job-output-" + name,
          new Outlet.Destination() {
            @Override
            public void write(byte[] data) throws IOException {
              in.write(data);
              in.flush();
            }

            @Override
            public void close() throws IOException {
              in.close();
            }
          },
          e -> log.warn("cannot append task output to {}: {}", file, e.getMessage()));
    } catch (IOException e) {
      log.warn("cannot open {} for task output: {}", file, e.getMessage());
      return discarding(name);
    }
  }

  private static Outlet discarding(String name) {
    return new Outlet(
        "job-output-" + name,
        new Outlet.Destination() {
          @Override
          public void write(byte[] data) {}

          @Override
          public void close() {}
        },
        x -> {});
  }
}

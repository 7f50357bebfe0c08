package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of the built berth-tm as pbsdsh or pbs_tmrsh, in a process of its own with exactly the
 * environment given, its stdin read from a file and its stdout and stderr written to files.
 */
public final class TmProcess {
  /** The binary the module's build made; surefire names it. */
  public static final Path BINARY =
      Path.of(System.getProperty("berth.tm.binary", "target/native/berth-tm"));

  /** What a finished run printed and how it ended. */
  public record Result(int status, String out, String err) {}

  private final Process process;
  private final Path files;

  private TmProcess(Process process, Path files) {
    this.process = process;
    this.files = files;
  }

  /** Starts {@code berth-tm command args...} in {@code cwd}, with {@code env} and {@code stdin}. */
  public static TmProcess start(
      Path cwd, Map<String, String> env, String stdin, String command, String... args)
      throws IOException {
    Path files = Files.createTempDirectory(cwd, "run");
    Files.writeString(files.resolve("stdin"), stdin);
    List<String> argv = new ArrayList<>(List.of(BINARY.toString(), command));
    argv.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .directory(cwd.toFile())
            .redirectInput(files.resolve("stdin").toFile())
            .redirectOutput(files.resolve("stdout").toFile())
            .redirectError(files.resolve("stderr").toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    return new TmProcess(builder.start(), files);
  }

  /** Runs it to its end. */
  public static Result run(
      Path cwd, Map<String, String> env, String stdin, String command, String... args)
      throws IOException, InterruptedException {
    return start(cwd, env, stdin, command, args).await();
  }

  public long pid() {
    return process.pid();
  }

  /** Sends a signal by name ({@code INT}, {@code TERM}, {@code HUP}), as kill(1) would. */
  public void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid())).start();
    assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -s " + name);
  }

  /** The process's peak resident size in kB (VmHWM), while it runs. */
  public long peakResidentKb() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new AssertionError("no VmHWM in /proc/" + pid() + "/status");
  }

  /** Waits for the end (at most 20 s) and reads what it printed. */
  public Result await() throws IOException, InterruptedException {
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("berth-tm did not end: " + read("stderr"));
    }
    return new Result(process.exitValue(), read("stdout"), read("stderr"));
  }

  private String read(String name) throws IOException {
    return Files.readString(files.resolve(name), StandardCharsets.UTF_8);
  }
}

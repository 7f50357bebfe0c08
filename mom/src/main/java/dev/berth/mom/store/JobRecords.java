package dev.berth.mom.store;

import dev.berth.proto.JobObitReport;
import dev.berth.proto.RunJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The mom's node-local, durable record of each job it runs, so that a restarted mom finds its jobs
 * again instead of killing them: the run request and script, the starter's pid and start time, the
 * starter's status file, and the obit until the server acknowledges it. Lives in a root-only
 * directory; each file is written to a temporary name and renamed into place.
 */
public final class JobRecords {
  private static final String RUN = "run.pb";
  private static final String SCRIPT = "script";
  private static final String PROCESS = "process";
  private static final String STATUS = "status";
  private static final String OBIT = "obit.pb";

  private final Path root;

  /** What is on disk for one job. */
  public record Record(
      String jobId,
      RunJob run,
      Optional<long[]> process, // pid, identity, launched millis
      Optional<String> status,
      Optional<JobObitReport> obit) {}

  public JobRecords(Path root) throws IOException {
    this.root = root;
    Files.createDirectories(root);
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
  }

  public Path directory(String jobId) {
    if (jobId.isEmpty() || jobId.contains("/") || jobId.startsWith(".")) {
      throw new IllegalArgumentException("unsafe job id " + jobId);
    }
    return root.resolve(jobId);
  }

  public Path script(String jobId) {
    return directory(jobId).resolve(SCRIPT);
  }

  public Path statusFile(String jobId) {
    return directory(jobId).resolve(STATUS);
  }

  public void create(RunJob run) throws IOException {
    Path dir = directory(run.getJob().getId());
    Files.createDirectories(dir);
    write(dir.resolve(SCRIPT), run.getScript().toByteArray());
    write(dir.resolve(RUN), run.toByteArray());
  }

  public void recordProcess(String jobId, long pid, long identity, long launchedMillis)
      throws IOException {
    write(
        directory(jobId).resolve(PROCESS),
        (pid + " " + identity + " " + launchedMillis + "\n").getBytes());
  }

  public void recordObit(String jobId, JobObitReport obit) throws IOException {
    write(directory(jobId).resolve(OBIT), obit.toByteArray());
  }

  public Optional<String> status(String jobId) {
    Path file = statusFile(jobId);
    try {
      return Files.exists(file) ? Optional.of(Files.readString(file).strip()) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public void remove(String jobId) throws IOException {
    Path dir = directory(jobId);
    if (!Files.exists(dir)) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
  }

  /** Every job record on disk; unreadable ones are reported by their id with no run request. */
  public List<Record> all() throws IOException {
    List<Record> result = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path dir : dirs) {
        if (!Files.isDirectory(dir) || !Files.exists(dir.resolve(RUN))) {
          continue;
        }
        String id = dir.getFileName().toString();
        RunJob run = RunJob.parseFrom(Files.readAllBytes(dir.resolve(RUN)));
        Optional<long[]> process = Optional.empty();
        if (Files.exists(dir.resolve(PROCESS))) {
          String[] f = Files.readString(dir.resolve(PROCESS)).strip().split(" ");
          process =
              Optional.of(
                  new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])});
        }
        Optional<JobObitReport> obit =
            Files.exists(dir.resolve(OBIT))
                ? Optional.of(JobObitReport.parseFrom(Files.readAllBytes(dir.resolve(OBIT))))
                : Optional.empty();
        result.add(new Record(id, run, process, status(id), obit));
      }
    }
    return result;
  }

  private static void write(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, bytes);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}

package dev.berth.mom.store;

import dev.berth.core.FormatVersion;
import dev.berth.mom.job.Suspension;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobRecordEntry;
import dev.berth.proto.JoinJob;
import dev.berth.proto.RunJob;
import dev.berth.proto.StarterProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The mom's node-local, durable record of each job it runs, so that a restarted mom finds its jobs
 * again instead of killing them: the run request with its script, the starter's pid and start time,
 * the starter's status file, and the obit until the server acknowledges it. Lives in a root-only
 * directory: what the mom knows of a job is one file there, {@code JOBID.record} ({@link
 * RecordLog}), to which each fact is appended and synced, and the starter reports to {@code
 * JOBID.status}. A job with tasks also has a directory of its own, {@code JOBID/}, for the tasks'
 * records and its other starters' reports, made when the first of them is, and for its suspension
 * once it has been suspended; most jobs have none.
 *
 * <p>Over 400 lines: the records' one format is written and read here, by the live job and by the
 * scan after a restart (the previous release's layout included), so that writer and reader cannot
 * drift apart.
 */
public final class JobRecords {
  private static final String RECORD = ".record";
  private static final String STATUS = ".status";
  private static final String TASK = "task-";
  private static final String NEXT_TASK = "tasks.next";
  private static final String SUSPENSION = "suspension";

  /**
   * The format mark of the records, a file beside the jobs' directories. Version 3 keeps a job's
   * record in one file; versions 1 and 2 (marked from 2 on) kept a file per fact, which this
   * release still reads and rewrites as its own when it finds them.
   */
  private static final String FORMAT = "format";

  static final int FORMAT_VERSION = 3;

  // Version 2's files, in a directory per job, one per fact, each written to a temporary name and
  // renamed into place.
  private static final String RUN = "run.pb";
  private static final String SCRIPT = "script";
  private static final String PROCESS = "process";
  private static final String OBIT = "obit.pb";
  private static final String SISTER = "sister";
  private static final String STATUS_V2 = "status";

  /**
   * The files of version 2 that make a directory a job's record: each is written only once the job
   * has one.
   */
  private static final List<String> RECORD_FILES = List.of(RUN, PROCESS, SISTER, OBIT);

  private final Path root;

  /** What is on disk for one job. */
  public record Record(
      String jobId,
      RunJob run,
      Optional<long[]> process, // pid, identity, launched millis
      Optional<String> status,
      Optional<JobObitReport> obit,
      Optional<String> motherSuperior,
      Suspension suspension) {
    /** Whether this node is a sister of the job (not its mother superior). */
    public boolean sister() {
      return motherSuperior.isPresent();
    }
  }

  /**
   * What a mom finds on disk at start: the records it can read, and the jobs whose record it cannot
   * read (job id to what is wrong), which it must leave alone.
   */
  public record Scan(List<Record> records, Map<String, String> unreadable) {}

  /**
   * Opens the records in {@code root}, made root-only, creating it on first use. A directory that
   * cannot be made or used is reported by {@link #scan}, not here: a mom that cannot read its
   * records must still start and say so, or its node would be taken for lost with its jobs.
   */
  public JobRecords(Path root) {
    this.root = root;
    try {
      Files.createDirectories(root);
      Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
    } catch (IOException e) {
      // scan() fails on it with the reason
    }
  }

  /** Where the records live, for the messages that name it. */
  public Path root() {
    return root;
  }

  /** The job's own directory, which exists only once something was put in it ({@link #file}). */
  public Path directory(String jobId) {
    if (jobId.isEmpty() || jobId.contains("/") || jobId.startsWith(".")) {
      throw new IllegalArgumentException("unsafe job id " + jobId);
    }
    return root.resolve(jobId);
  }

  /**
   * File {@code name} in the job's own directory, which is made now if it is not there yet: for the
   * reports of the starters the mom runs for the job besides its script.
   */
  public Path file(String jobId, String name) throws IOException {
    Path dir = directory(jobId);
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir);
    }
    return dir.resolve(name);
  }

  /** The job's record. */
  public Path recordFile(String jobId) {
    return root.resolve(directory(jobId).getFileName() + RECORD);
  }

  /** Where the job script's starter reports how the script ended. */
  public Path statusFile(String jobId) {
    return root.resolve(directory(jobId).getFileName() + STATUS);
  }

  /** A new job's record: the run request, script and all. */
  public void create(RunJob run) throws IOException {
    RecordLog.create(
        recordFile(run.getJob().getId()), JobRecordEntry.newBuilder().setRun(run).build());
  }

  /** A sister's record: the job it joined and the mother superior to answer to. */
  public void createSister(JoinJob join) throws IOException {
    RecordLog.create(
        recordFile(join.getJob().getId()),
        JobRecordEntry.newBuilder()
            .setRun(RunJob.newBuilder().setJob(join.getJob()).setKillDelay(join.getKillDelay()))
            .build(),
        JobRecordEntry.newBuilder().setMotherSuperior(join.getMotherSuperior()).build());
  }

  public void recordProcess(String jobId, long pid, long identity, long launchedMillis)
      throws IOException {
    RecordLog.append(recordFile(jobId), process(pid, identity, launchedMillis));
  }

  private static JobRecordEntry process(long pid, long identity, long launchedMillis) {
    return JobRecordEntry.newBuilder()
        .setProcess(
            StarterProcess.newBuilder()
                .setPid(pid)
                .setIdentity(identity)
                .setLaunchedMillis(launchedMillis))
        .build();
  }

  /** Where the starter of task {@code taskId} writes how the task ended. */
  public Path taskStatusFile(String jobId, int taskId) {
    return directory(jobId).resolve(taskStatusName(taskId));
  }

  /** {@link #taskStatusFile} for a task about to start: the job's directory is made if need be. */
  public Path newTaskStatusFile(String jobId, int taskId) throws IOException {
    return file(jobId, taskStatusName(taskId));
  }

  private static String taskStatusName(int taskId) {
    return TASK + taskId + STATUS;
  }

  /**
   * Notes a task's starter, so that a restarted mom can still end the task with its job. Not forced
   * to disk: the page cache outlives a crash of the mom, and a crash of the machine ends the task
   * as well.
   */
  public void recordTask(String jobId, int taskId, long pid, long identity) throws IOException {
    Files.writeString(file(jobId, TASK + taskId), pid + " " + identity + "\n");
  }

  /**
   * Notes the job's suspensions here, so that a restarted mom knows that the job is frozen and
   * leaves the time it was frozen out of its walltime. Beside the tasks' records and, like them,
   * not forced to disk: a crash of the machine ends the job as well. (A release that does not know
   * the file leaves it alone, and it goes with the job's directory.)
   */
  public void recordSuspension(String jobId, Suspension suspension) throws IOException {
    Path file = file(jobId, SUSPENSION);
    Path tmp = file.resolveSibling(SUSPENSION + ".tmp");
    Files.writeString(tmp, suspension.line() + "\n");
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private Suspension suspension(String jobId) throws IOException {
    Path file = directory(jobId).resolve(SUSPENSION);
    if (!Files.exists(file)) {
      return Suspension.NONE;
    }
    try {
      return Suspension.parse(Files.readString(file));
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "the suspension record " + file + " is malformed: " + e.getMessage(), e);
    }
  }

  /** A task whose end the mother superior has acknowledged needs no record any more. */
  public void forgetTask(String jobId, int taskId) {
    try {
      Files.deleteIfExists(directory(jobId).resolve(TASK + taskId));
      Files.deleteIfExists(taskStatusFile(jobId, taskId));
    } catch (IOException e) {
      // removed with the job's record at the latest
    }
  }

  /** The recorded tasks of a job: task id, starter pid and the pid's start time. */
  public List<long[]> tasks(String jobId) throws IOException {
    List<long[]> tasks = new ArrayList<>();
    Path dir = directory(jobId);
    if (!Files.isDirectory(dir)) {
      return tasks;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, TASK + "[0-9]*")) {
      for (Path f : files) {
        String name = f.getFileName().toString().substring(TASK.length());
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        String[] v = Files.readString(f).strip().split(" ");
        if (v.length == 2) {
          tasks.add(new long[] {Long.parseLong(name), Long.parseLong(v[0]), Long.parseLong(v[1])});
        }
      }
    } catch (NumberFormatException e) {
      throw new IOException("a task record of job " + jobId + " is malformed", e);
    }
    return tasks;
  }

  /**
   * Hands out the next task id of a job this node is mother superior of (the script is task 1),
   * remembered across mom restarts so that an id is never given twice.
   */
  public int nextTaskId(String jobId) throws IOException {
    Path file = file(jobId, NEXT_TASK);
    int next;
    try {
      next = Files.exists(file) ? Integer.parseInt(Files.readString(file).strip()) : 2;
    } catch (NumberFormatException e) {
      throw new IOException("the task counter " + file + " is damaged", e);
    }
    Path tmp = file.resolveSibling(NEXT_TASK + ".tmp");
    Files.writeString(tmp, (next + 1) + "\n");
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return next;
  }

  public void recordObit(String jobId, JobObitReport obit) throws IOException {
    RecordLog.append(recordFile(jobId), JobRecordEntry.newBuilder().setObit(obit).build());
  }

  /**
   * How the job script's starter said the script ended, once it has. (A starter that a release
   * before format 3 started reports in the job's directory.)
   */
  public Optional<String> status(String jobId) {
    try {
      for (Path file : List.of(statusFile(jobId), directory(jobId).resolve(STATUS_V2))) {
        if (Files.exists(file)) {
          return Optional.of(Files.readString(file).strip());
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The job's record, its starter's report and its directory, once the server has the obit. */
  public void remove(String jobId) throws IOException {
    Path dir = directory(jobId);
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
        for (Path f : files) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
    Files.deleteIfExists(statusFile(jobId));
    Files.deleteIfExists(recordFile(jobId)); // last: a record cut short here is read as none
  }

  /**
   * Every job record on disk. A record that cannot be read (a damaged file) is named in {@link
   * Scan#unreadable} and left where it is, so that one bad record cannot keep the mom from finding
   * the others, and the job stays known as this node's until an administrator has looked. A record
   * whose first entry a crash cut short is a record whose making was cut short before anything of
   * its job ran, and is not one; nor is a job directory without a record. A record in version 2's
   * files is rewritten as this release's.
   *
   * @throws IOException when the records directory itself cannot be read
   */
  public Scan scan() throws IOException {
    List<Record> readable = new ArrayList<>();
    Map<String, String> unreadable = new TreeMap<>();
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      dirs.forEach(entries::add); // all first: rewriting a version 2 record adds a file here
    } catch (DirectoryIteratorException e) {
      throw e.getCause();
    }
    checkFormat(); // once the records are known to be a directory at all
    for (Path entry : entries) {
      String name = entry.getFileName().toString();
      boolean directory = Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS);
      if (!directory && name.endsWith(RECORD) && name.length() > RECORD.length()) {
        String id = name.substring(0, name.length() - RECORD.length());
        try {
          read(id, entry).ifPresent(readable::add);
        } catch (IOException | RuntimeException e) {
          unreadable.put(id, describe(e));
        }
      } else if (directory
          && !exists(root, name + RECORD)
          && RECORD_FILES.stream().anyMatch(f -> exists(entry, f))) {
        try {
          readable.add(rewrite(readVersion2(name, entry), entry, recordFile(name)));
        } catch (IOException | RuntimeException e) {
          unreadable.put(name, describe(e));
        }
      }
    }
    return new Scan(readable, unreadable);
  }

  /**
   * Refuses records a newer release wrote (the mom then leaves their jobs alone, as with any
   * records it cannot read); marks older ones, or none yet, as this release's.
   */
  private void checkFormat() throws IOException {
    Path mark = root.resolve(FORMAT);
    FormatVersion format = new FormatVersion("the job records directory " + root, FORMAT_VERSION);
    String found = Files.exists(mark, LinkOption.NOFOLLOW_LINKS) ? Files.readString(mark) : null;
    try {
      if (format.check(found) < FORMAT_VERSION) {
        write(mark, (format.mark() + "\n").getBytes(StandardCharsets.UTF_8));
      }
    } catch (IllegalStateException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /**
   * A failure to read records, for an administrator: the kind of failure names what went wrong
   * where the message alone is only a path (NotDirectoryException: /var/lib/berth/mom/n1/jobs).
   */
  public static String describe(Exception e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private static boolean exists(Path dir, String file) {
    return Files.exists(dir.resolve(file), LinkOption.NOFOLLOW_LINKS);
  }

  /** A record of this release's: empty when a crash cut its first entry short. */
  private Optional<Record> read(String id, Path file) throws IOException {
    RecordLog.Contents contents = RecordLog.read(file);
    if (contents.entries().isEmpty()) {
      return Optional.empty();
    }
    RecordLog.truncate(file, contents.length());
    List<JobRecordEntry> entries = contents.entries();
    if (!entries.get(0).hasRun()) {
      throw new IOException("the record " + file + " does not begin with the run request");
    }
    Optional<long[]> process = Optional.empty();
    Optional<JobObitReport> obit = Optional.empty();
    Optional<String> motherSuperior = Optional.empty();
    for (JobRecordEntry e : entries.subList(1, entries.size())) {
      switch (e.getEntryCase()) {
        case PROCESS -> {
          StarterProcess p = e.getProcess();
          process = Optional.of(new long[] {p.getPid(), p.getIdentity(), p.getLaunchedMillis()});
        }
        case OBIT -> obit = Optional.of(e.getObit());
        case MOTHER_SUPERIOR -> motherSuperior = Optional.of(e.getMotherSuperior());
        default ->
            throw new IOException(
                "the record " + file + " holds an entry this release does not know: " + e);
      }
    }
    return Optional.of(
        new Record(
            id,
            entries.get(0).getRun(),
            process,
            status(id),
            obit,
            motherSuperior,
            suspension(id)));
  }

  private Record readVersion2(String id, Path dir) throws IOException {
    RunJob run = RunJob.parseFrom(Files.readAllBytes(dir.resolve(RUN)));
    Optional<long[]> process = Optional.empty();
    if (Files.exists(dir.resolve(PROCESS))) {
      String[] f = Files.readString(dir.resolve(PROCESS)).strip().split(" ");
      if (f.length != 3) {
        throw new IOException("process record '" + String.join(" ", f) + "' is malformed");
      }
      process =
          Optional.of(
              new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])});
    }
    Optional<JobObitReport> obit =
        Files.exists(dir.resolve(OBIT))
            ? Optional.of(JobObitReport.parseFrom(Files.readAllBytes(dir.resolve(OBIT))))
            : Optional.empty();
    Optional<String> motherSuperior =
        Files.exists(dir.resolve(SISTER))
            ? Optional.of(Files.readString(dir.resolve(SISTER)).strip())
            : Optional.empty();
    return new Record(id, run, process, status(id), obit, motherSuperior, suspension(id));
  }

  /**
   * Version 2's files as this release's record, so that what the job does next is appended to it:
   * the record is complete under its own name before the old files go. The job's directory stays,
   * with its starter's status and its tasks' records.
   */
  private static Record rewrite(Record r, Path dir, Path record) throws IOException {
    List<JobRecordEntry> entries = new ArrayList<>();
    entries.add(JobRecordEntry.newBuilder().setRun(r.run()).build());
    r.motherSuperior()
        .ifPresent(m -> entries.add(JobRecordEntry.newBuilder().setMotherSuperior(m).build()));
    r.process().ifPresent(p -> entries.add(process(p[0], p[1], p[2])));
    r.obit().ifPresent(o -> entries.add(JobRecordEntry.newBuilder().setObit(o).build()));
    write(record, RecordLog.frame(entries));
    for (String old : List.of(RUN, SCRIPT, PROCESS, OBIT, SISTER)) {
      Files.deleteIfExists(dir.resolve(old));
    }
    return r;
  }

  /** Writes durably: the data, then the rename, then the directory entry reach the disk. */
  private static void write(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(ByteBuffer.wrap(bytes));
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}

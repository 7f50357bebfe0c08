package dev.berth.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Writes how much CPU each test class used, with the daemons, commands and jobs it started, to the
 * file the system property {@code berth.class-cpu} names (nothing without it). The classes run
 * several at once, so their wall times overlap and say little about what a class costs the machine;
 * ops/test-times lists the ten that used most CPU from this file.
 *
 * <p>A fork's CPU is its own time and that of the children it has reaped, which include theirs: the
 * daemons a class starts, and the jobs under them, are counted once the class has stopped and
 * waited for them (Processes.stop). A fork runs one class at a time, so the difference between a
 * class's start and end is that class's.
 */
public final class ClassCpu implements TestExecutionListener {
  private static final String PROPERTY = "berth.class-cpu";

  /** USER_HZ, the unit of /proc/PID/stat times: 100 on every Linux architecture. */
  private static final long TICKS_PER_SECOND = 100;

  private final Map<String, long[]> started = new ConcurrentHashMap<>();

  @Override
  public void executionStarted(TestIdentifier test) {
    if (report() != null && isClass(test)) {
      started.put(test.getUniqueId(), new long[] {cpuTicks(), System.nanoTime()});
    }
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    long[] start = started.remove(test.getUniqueId());
    if (start == null) {
      return;
    }
    String className = ((ClassSource) test.getSource().orElseThrow()).getClassName();
    String line =
        String.format(
            "%.2f %.1f %s%n",
            (cpuTicks() - start[0]) / (double) TICKS_PER_SECOND,
            (System.nanoTime() - start[1]) / 1e9,
            className);
    try {
      // One short append: lines from forks writing at once do not interleave.
      Files.writeString(
          report(),
          line,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path report() {
    String file = System.getProperty(PROPERTY);
    return file == null ? null : Path.of(file);
  }

  private static boolean isClass(TestIdentifier test) {
    return test.getSource().filter(ClassSource.class::isInstance).isPresent();
  }

  /** This process's user and system time and its reaped children's, in clock ticks. */
  private static long cpuTicks() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // The fields after the command name, which is in parentheses and may hold spaces.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // utime, stime, cutime and cstime are fields 14-17 of proc(5); fields[0] is field 3.
      long ticks = 0;
      for (int field = 14; field <= 17; field++) {
        ticks += Long.parseLong(fields[field - 3]);
      }
      return ticks;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

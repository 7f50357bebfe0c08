package dev.berth.scheduler.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * A workload trace in the Standard Workload Format of the Parallel Workloads Archive: header lines
 * start with {@code ;}, then one job per line, 18 whitespace-separated fields, -1 where a value is
 * unknown. Jobs that cannot be replayed (no run time, no processors: often cancelled before they
 * started) are counted and left out.
 */
public record SwfTrace(List<SwfJob> jobs, int leftOut) {
  private static final int FIELDS = 18;

  public SwfTrace {
    jobs = List.copyOf(jobs);
  }

  public static SwfTrace parse(Reader text) throws IOException {
    List<SwfJob> jobs = new ArrayList<>();
    int leftOut = 0;
    BufferedReader in = new BufferedReader(text);
    int lineNumber = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lineNumber++;
      String t = line.strip();
      if (t.isEmpty() || t.startsWith(";")) {
        continue;
      }
      String[] f = t.split("\\s+");
      if (f.length < FIELDS) {
        throw new IllegalArgumentException(
            "line " + lineNumber + ": " + f.length + " fields, a job has " + FIELDS);
      }
      try {
        long number = Long.parseLong(f[0]);
        long submit = Long.parseLong(f[1]);
        long runtime = Long.parseLong(f[3]);
        int allocated = Integer.parseInt(f[4]);
        int requested = Integer.parseInt(f[7]);
        long requestedTime = Long.parseLong(f[8]);
        long user = Long.parseLong(f[11]);
        long group = Long.parseLong(f[12]);
        int processors = allocated > 0 ? allocated : requested;
        if (runtime < 0 || processors < 1 || submit < 0) {
          leftOut++;
          continue;
        }
        jobs.add(new SwfJob(number, submit, runtime, processors, requestedTime, user, group));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "line " + lineNumber + ": not a number: " + e.getMessage(), e);
      }
    }
    return new SwfTrace(jobs, leftOut);
  }
}

package dev.berth.server.testing;

import static dev.berth.server.testing.Driver.attr;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.server.command.Caller;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The largest array one user may submit under the default limits: max_job_array_size (10,000)
 * subjobs of a job whose environment takes about 225 KB, four values of near the largest a value
 * may be (AttributeValues: 64 KiB each, 256 KiB a job). Each job is within the limits; together
 * they are what a snapshot, a qmove or a qstat -f -t would have to carry 10,000 times.
 */
public final class WorstCaseArray {
  public static final int SUBJOBS = 10_000;

  /** The environment's size, in characters (ASCII: bytes). */
  public static final int VARIABLE_BYTES = 4 * 56_000;

  private WorstCaseArray() {}

  /** Submits it as {@code owner}; its id. */
  public static String submit(Driver d, Caller owner) {
    return d.submit(owner, attributes(SUBJOBS).toArray(Attribute[]::new));
  }

  /** The array's attributes with {@code subjobs} subjobs. */
  public static List<Attribute> attributes(int subjobs) {
    List<Attribute> a = new ArrayList<>();
    a.add(attr(AttributeNames.JOB_ARRAY_REQUEST, "0-" + (subjobs - 1)));
    Random random = new Random(30);
    for (int v = 0; v < 4; v++) {
      StringBuilder value = new StringBuilder("BIG" + v + "=");
      while (value.length() < VARIABLE_BYTES / 4) {
        value.append((char) ('a' + random.nextInt(26)));
      }
      a.add(attr(AttributeNames.VARIABLE_LIST, value.toString()));
    }
    return a;
  }
}

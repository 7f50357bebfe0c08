package dev.berth.tools.squeue;

import dev.berth.core.slurm.SlurmJobs;
import dev.berth.tools.slurm.SlurmJob;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * squeue's {@code -S, --sort=FIELDS}: a comma list of {@code -o}'s letters, the first the most
 * significant, each ascending or, after {@code -}, descending ({@code +} is ascending), as Slurm
 * 22.05's squeue (sort.c) reads it. Its default is {@code P,t,-p} (partition, state, falling
 * priority), {@code S} with {@code --start}. Jobs equal on every key keep their numbers' order.
 */
final class SqueueSort {
  static final String DEFAULT = "P,t,-p";
  static final String START = "S";

  /** The keys, by the letter Slurm sorts by. */
  private static final Map<Character, Comparator<SlurmJob>> KEYS =
      Map.ofEntries(
          Map.entry(
              'i',
              Comparator.comparingLong((SlurmJob j) -> j.job().getNumber())
                  .thenComparingInt(j -> j.job().getArrayIndex())),
          Map.entry('A', Comparator.comparingLong(j -> SlurmJobs.number(j.job()))),
          Map.entry('j', by(j -> j.job().getName())),
          Map.entry('u', by(j -> j.job().getEuser())),
          Map.entry('g', by(j -> j.job().getEgroup())),
          Map.entry('a', by(j -> j.job().getAccount())),
          Map.entry('P', by(j -> j.job().getQueue())),
          Map.entry('t', Comparator.comparing(SlurmJob::state)),
          Map.entry('T', Comparator.comparing(SlurmJob::state)),
          Map.entry('p', Comparator.comparingLong(j -> j.job().getSchedPriority().getTotal())),
          Map.entry('Q', Comparator.comparingLong(j -> j.job().getSchedPriority().getTotal())),
          Map.entry('M', Comparator.comparingLong(SlurmJob::timeUsed)),
          Map.entry('l', Comparator.comparingLong(SlurmJob::timeLimit)),
          Map.entry('L', Comparator.comparingLong(j -> Math.max(0, j.timeLimit() - j.timeUsed()))),
          Map.entry('D', Comparator.comparingInt(SlurmJob::nodes)),
          Map.entry('C', Comparator.comparingInt(SlurmJob::cpus)),
          Map.entry('N', by(SlurmJob::nodeList)),
          Map.entry(
              'B',
              by(j -> j.job().getExecNodesCount() == 0 ? "" : j.job().getExecNodes(0).getNode())),
          Map.entry(
              'S',
              Comparator.comparingLong(
                  j ->
                      j.job().getStartTime() > 0
                          ? j.job().getStartTime()
                          : j.job().getEstimatedStartTime())),
          Map.entry('V', Comparator.comparingLong(j -> j.job().getCtime())),
          Map.entry('e', Comparator.comparingLong(j -> j.job().getCompTime())),
          Map.entry('r', by(SlurmJob::reason)));

  /** Letters Slurm's squeue takes and does not sort by (sort.c leaves them out). */
  private static final Set<Character> IGNORED = Set.of('c', 'f', 'h', 'n', 'O');

  /** Letters Slurm sorts by what Berth's jobs do not have. */
  private static final Set<Character> NOT_HONOURED =
      Set.of('d', 'G', 'H', 'I', 'J', 'm', 'U', 'v', 'z', 'b');

  private SqueueSort() {}

  private static Comparator<SlurmJob> by(Function<SlurmJob, String> key) {
    return Comparator.comparing(key);
  }

  /**
   * The order {@code spec} asks for.
   *
   * @throws IllegalArgumentException Slurm's {@code Invalid sort specification: X}, or a letter
   *     Berth cannot sort by, named
   */
  static Comparator<SlurmJob> parse(String spec) {
    Comparator<SlurmJob> order = null;
    boolean descending = false;
    for (int i = 0; i < spec.length(); i++) {
      char c = spec.charAt(i);
      if (c == ',' || c == '+') {
        descending = false;
        continue;
      }
      if (c == '-') {
        descending = true;
        continue;
      }
      Comparator<SlurmJob> key = KEYS.get(c);
      if (key == null && NOT_HONOURED.contains(c)) {
        throw new IllegalArgumentException(
            "sorting by %" + c + " is not supported by Berth's squeue yet");
      }
      if (key == null && !IGNORED.contains(c)) {
        throw new IllegalArgumentException("Invalid sort specification: " + c);
      }
      if (key != null) {
        key = descending ? key.reversed() : key;
        order = order == null ? key : order.thenComparing(key);
      }
      descending = false;
    }
    Comparator<SlurmJob> last = KEYS.get('i');
    return order == null ? last : order.thenComparing(last);
  }
}

package dev.berth.tools.squeue;

import dev.berth.tools.slurm.SlurmJob;
import dev.berth.tools.slurm.SlurmTimes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * squeue's {@code -o} formats: text with fields {@code %[.][size]type}, a size padding the field to
 * that width (and cutting what is longer), a {@code .} putting it on the right, as Slurm 22.05's
 * squeue prints them. The fields Berth knows are {@link #FIELDS}; any other is refused by name.
 */
final class SqueueFormat {
  static final String DEFAULT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
  static final String LONG = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
  static final String START = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %R";

  /** What a field shows: its header and its value of a job. */
  record Field(String header, Function<SlurmJob, String> value) {}

  /** A piece of a format: literal text, or a field with its width and side. */
  private record Piece(String text, Field field, int width, boolean right) {}

  private final List<Piece> pieces;

  private SqueueFormat(List<Piece> pieces) {
    this.pieces = pieces;
  }

  /** The fields Berth's squeue shows, by their letter. */
  static Map<Character, Field> fields(ZoneId zone) {
    Function<Long, String> time = t -> SlurmTimes.date(t, zone, "N/A");
    return Map.ofEntries(
        Map.entry('i', new Field("JOBID", SlurmJob::id)),
        Map.entry('F', new Field("ARRAY_JOB_ID", j -> Long.toString(j.job().getNumber()))),
        Map.entry(
            'K',
            new Field(
                "ARRAY_TASK_ID",
                j -> j.arrayTask() ? Integer.toString(j.job().getArrayIndex()) : "N/A")),
        Map.entry('j', new Field("NAME", j -> j.job().getName())),
        Map.entry('u', new Field("USER", j -> j.job().getEuser())),
        Map.entry('g', new Field("GROUP", j -> j.job().getEgroup())),
        Map.entry('a', new Field("ACCOUNT", j -> orNull(j.job().getAccount()))),
        Map.entry('P', new Field("PARTITION", j -> j.job().getQueue())),
        Map.entry('t', new Field("ST", j -> j.state().compact)),
        Map.entry('T', new Field("STATE", j -> j.state().name())),
        Map.entry('M', new Field("TIME", j -> SlurmTimes.secs(j.timeUsed()))),
        Map.entry(
            'l',
            new Field(
                "TIME_LIMIT",
                j -> j.timeLimit() == 0 ? "UNLIMITED" : SlurmTimes.secs(j.timeLimit()))),
        Map.entry(
            'L',
            new Field(
                "TIME_LEFT",
                j ->
                    j.timeLimit() == 0
                        ? "UNLIMITED"
                        : SlurmTimes.secs(Math.max(0, j.timeLimit() - j.timeUsed())))),
        Map.entry('D', new Field("NODES", j -> Integer.toString(j.nodes()))),
        Map.entry('C', new Field("CPUS", j -> Integer.toString(j.cpus()))),
        Map.entry('N', new Field("NODELIST", SlurmJob::nodeList)),
        Map.entry(
            'B',
            new Field(
                "EXEC_HOST",
                j -> j.job().getExecNodesCount() == 0 ? "n/a" : j.job().getExecNodes(0).getNode())),
        Map.entry('r', new Field("REASON", SlurmJob::reason)),
        Map.entry(
            'R',
            new Field(
                "NODELIST(REASON)",
                j ->
                    j.state() == SlurmJob.State.PENDING || j.state() == SlurmJob.State.FAILED
                        ? "(" + j.reason() + ")"
                        : j.nodeList())),
        Map.entry(
            'S',
            new Field(
                "START_TIME",
                j ->
                    time.apply(
                        j.job().getStartTime() > 0
                            ? j.job().getStartTime()
                            : j.job().getEstimatedStartTime()))),
        Map.entry('V', new Field("SUBMIT_TIME", j -> time.apply(j.job().getCtime()))),
        Map.entry('e', new Field("END_TIME", j -> end(j, time))),
        Map.entry('Z', new Field("WORK_DIR", j -> workDir(j))),
        Map.entry(
            'Q', new Field("PRIORITY", j -> Long.toString(j.job().getSchedPriority().getTotal()))));
  }

  private static String orNull(String s) {
    return s.isEmpty() ? "(null)" : s;
  }

  private static String end(SlurmJob j, Function<Long, String> time) {
    if (j.job().getCompTime() > 0) {
      return time.apply(j.job().getCompTime());
    }
    if (j.job().getStartTime() > 0 && j.timeLimit() > 0) {
      return time.apply(j.job().getStartTime() + j.job().getSuspendedSeconds() + j.timeLimit());
    }
    return j.job().getStartTime() > 0 ? "NONE" : "N/A";
  }

  private static String workDir(SlurmJob j) {
    String dir = j.job().getInitWorkDir();
    return dir.isEmpty() ? j.job().getWorkDir() : dir;
  }

  /**
   * Reads {@code format}.
   *
   * @throws IllegalArgumentException naming a field Berth does not show
   */
  static SqueueFormat parse(String format, Map<Character, Field> fields) {
    List<Piece> pieces = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    int i = 0;
    while (i < format.length()) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 >= format.length()) {
        text.append(c);
        i++;
        continue;
      }
      int at = i + 1;
      boolean right = format.charAt(at) == '.';
      if (right) {
        at++;
      }
      int from = at;
      while (at < format.length() && Character.isDigit(format.charAt(at))) {
        at++;
      }
      if (at >= format.length()) {
        throw new IllegalArgumentException("a format that ends in a field without its letter");
      }
      int width = at == from ? 0 : Integer.parseInt(format.substring(from, Math.min(at, from + 4)));
      char letter = format.charAt(at);
      Field field = fields.get(letter);
      if (field == null) {
        throw new IllegalArgumentException(
            "the field %"
                + letter
                + " is not supported by Berth's squeue yet (docs/slurm.md lists"
                + " the fields it shows)");
      }
      if (text.length() > 0) {
        pieces.add(new Piece(text.toString(), null, 0, false));
        text.setLength(0);
      }
      pieces.add(new Piece(null, field, width, right && width > 0));
      i = at + 1;
    }
    if (text.length() > 0) {
      pieces.add(new Piece(text.toString(), null, 0, false));
    }
    return new SqueueFormat(List.copyOf(pieces));
  }

  String header() {
    return line(f -> f.header());
  }

  String row(SlurmJob job) {
    return line(f -> f.value().apply(job));
  }

  private String line(Function<Field, String> value) {
    StringBuilder out = new StringBuilder();
    for (Piece p : pieces) {
      if (p.field() == null) {
        out.append(p.text());
        continue;
      }
      String v = value.apply(p.field());
      if (p.width() > 0 && v.length() > p.width()) {
        v = v.substring(0, p.width());
      }
      if (p.width() > v.length()) {
        String pad = " ".repeat(p.width() - v.length());
        v = p.right() ? pad + v : v + pad;
      }
      out.append(v);
    }
    return out.toString();
  }
}

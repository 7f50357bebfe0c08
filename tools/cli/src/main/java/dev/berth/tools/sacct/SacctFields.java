package dev.berth.tools.sacct;

import dev.berth.core.slurm.SlurmJobs;
import dev.berth.tools.slurm.PrintFields;
import dev.berth.tools.slurm.SlurmJob;
import dev.berth.tools.slurm.SlurmTimes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * sacct's fields ({@code -o jobid,jobname%20,state}), with Slurm 22.05's widths (negative: on the
 * left), headers and values: a value too long for its column ends in {@code +}; {@code -P} joins
 * the values with {@code |}, {@code -p} ends each with one.
 */
final class SacctFields {
  static final String DEFAULT = "jobid,jobname,partition,account,alloccpus,state,exitcode";
  static final String BRIEF = "jobid,state,exitcode";

  private record Field(String name, int width, Function<SlurmJob, String> value) {}

  private record Column(Field field, int width) {}

  private final List<Column> columns;

  private SacctFields(List<Column> columns) {
    this.columns = columns;
  }

  private static Map<String, Field> fields(ZoneId zone) {
    Function<Long, String> date = t -> SlurmTimes.date(t, zone, "Unknown");
    List<Field> all =
        List.of(
            new Field("JobID", -12, SlurmJob::id),
            new Field("JobIDRaw", -12, j -> Long.toString(SlurmJobs.number(j.job()))),
            new Field("JobName", 10, j -> j.job().getName()),
            new Field("Partition", 10, j -> j.job().getQueue()),
            new Field("Account", 10, j -> j.job().getAccount()),
            new Field("AllocCPUS", 10, j -> Integer.toString(allocated(j) ? j.cpus() : 0)),
            new Field("NCPUS", 10, j -> Integer.toString(j.cpus())),
            new Field("NNodes", 8, j -> Integer.toString(j.nodes())),
            new Field("AllocNodes", 10, j -> Integer.toString(allocated(j) ? j.nodes() : 0)),
            new Field("State", 10, j -> state(j)),
            new Field("ExitCode", 8, SlurmJob::exitCode),
            new Field("User", 9, j -> j.job().getEuser()),
            new Field("Group", 9, j -> j.job().getEgroup()),
            new Field("Submit", 19, j -> date.apply(j.job().getCtime())),
            new Field("Start", 19, j -> date.apply(j.job().getStartTime())),
            new Field("End", 19, j -> date.apply(j.job().getCompTime())),
            new Field("Elapsed", 10, j -> SlurmTimes.clock(j.timeUsed())),
            new Field("ElapsedRaw", 10, j -> Long.toString(j.timeUsed())),
            new Field(
                "Timelimit",
                10,
                j -> j.timeLimit() == 0 ? "UNLIMITED" : SlurmTimes.clock(j.timeLimit())),
            new Field("NodeList", 15, j -> allocated(j) ? j.nodeList() : "None assigned"),
            new Field("MaxRSS", 10, SacctFields::maxRss),
            new Field("WorkDir", 20, SlurmJob::workDir));
    Map<String, Field> byName = new LinkedHashMap<>();
    all.forEach(f -> byName.put(f.name().toLowerCase(Locale.ROOT), f));
    return byName;
  }

  /** The field names {@code --helpformat} lists. */
  static List<String> names() {
    return fields(ZoneId.of("UTC")).values().stream().map(Field::name).toList();
  }

  private static boolean allocated(SlurmJob j) {
    return j.job().getExecNodesCount() > 0;
  }

  /** The state as sacct spells it: RUNNING until the job has ended. */
  private static String state(SlurmJob j) {
    return j.state() == SlurmJob.State.COMPLETING ? "RUNNING" : j.state().name();
  }

  private static String maxRss(SlurmJob j) {
    long bytes = j.job().getResourcesUsed().getMem();
    return bytes == 0 ? "" : (bytes + 1023) / 1024 + "K";
  }

  /**
   * {@code format}: field names in any case, each with an optional {@code %WIDTH}.
   *
   * @throws IllegalArgumentException naming a field Berth's sacct does not know
   */
  static SacctFields parse(String format, ZoneId zone) {
    Map<String, Field> known = fields(zone);
    List<Column> columns = new ArrayList<>();
    for (String item : format.split(",")) {
      String name = item.strip();
      int width = 0;
      int percent = name.indexOf('%');
      if (percent >= 0) {
        try {
          width = Integer.parseInt(name.substring(percent + 1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("Invalid field requested: \"" + name + "\"");
        }
        name = name.substring(0, percent);
      }
      Field f = known.get(name.toLowerCase(Locale.ROOT));
      if (f == null) {
        throw new IllegalArgumentException(
            "Invalid field requested: \""
                + name
                + "\" (Berth's sacct shows "
                + String.join(",", names())
                + ")");
      }
      int w = width == 0 ? f.width() : f.width() < 0 ? -width : width;
      columns.add(new Column(f, w));
    }
    return new SacctFields(List.copyOf(columns));
  }

  /** The header lines: names, then dashes (only names when parsable). */
  List<String> header(String mode) {
    return PrintFields.header(columns.stream().map(c -> c.field().name()).toList(), widths(), mode);
  }

  String row(SlurmJob job, String mode) {
    return PrintFields.row(
        columns.stream().map(c -> c.field().value().apply(job)).toList(), widths(), mode);
  }

  private List<Integer> widths() {
    return columns.stream().map(Column::width).toList();
  }
}

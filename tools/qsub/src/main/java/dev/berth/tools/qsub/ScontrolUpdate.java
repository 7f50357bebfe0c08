package dev.berth.tools.qsub;

import dev.berth.proto.Attribute;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * {@code scontrol update JobId=12 TimeLimit=2:00:00 ...}: Slurm's job fields as the attributes
 * qalter would change, read as Slurm 22.05's scontrol reads them (each {@code Key=Value} or {@code
 * Key Value}, keys in any case and abbreviated down to Slurm's lengths). Berth changes TimeLimit,
 * Name/JobName, Partition (a move to that queue), Account, Dependency, StartTime/EligibleTime,
 * MailUser and MailType; Slurm's other fields are refused by name, and what Slurm does not know is
 * refused in its words.
 */
public final class ScontrolUpdate {
  /**
   * What to do: the jobs (a Slurm id, as given), the attributes to alter and the partition to move
   * them to (null: stay).
   */
  public record Update(String jobs, List<Attribute> attributes, String partition) {}

  /** Why nothing is updated: the lines scontrol prints. */
  public static final class RefusedException extends Exception {
    RefusedException(String lines) {
      super(lines);
    }
  }

  /** Slurm's job fields that Berth cannot change (yet), with Slurm's abbreviation lengths. */
  private static final List<SlurmKeyword> NOT_HONOURED =
      List.of(
          new SlurmKeyword("AdminComment", 6),
          new SlurmKeyword("ArrayTaskThrottle", 6),
          new SlurmKeyword("Comment", 3),
          new SlurmKeyword("ClusterFeatures", 8),
          new SlurmKeyword("Priority", 2),
          new SlurmKeyword("Nice", 2),
          new SlurmKeyword("NumCPUs", 6),
          new SlurmKeyword("NumTasks", 8),
          new SlurmKeyword("ReqProcs", 8),
          new SlurmKeyword("Requeue", 4),
          new SlurmKeyword("NumNodes", 8),
          new SlurmKeyword("ReqNodes", 8),
          new SlurmKeyword("MinCPUsNode", 4),
          new SlurmKeyword("MinMemoryNode", 10),
          new SlurmKeyword("MinMemoryCPU", 10),
          new SlurmKeyword("MinTmpDiskNode", 5),
          new SlurmKeyword("QOS", 2),
          new SlurmKeyword("ReservationName", 3),
          new SlurmKeyword("StdOut", 6),
          new SlurmKeyword("OverSubscribe", 2),
          new SlurmKeyword("Shared", 2),
          new SlurmKeyword("Contiguous", 3),
          new SlurmKeyword("CoreSpec", 4),
          new SlurmKeyword("ThreadSpec", 4),
          new SlurmKeyword("TresPerJob", 8),
          new SlurmKeyword("TresPerNode", 8),
          new SlurmKeyword("TresPerSocket", 8),
          new SlurmKeyword("TresPerTask", 8),
          new SlurmKeyword("ExcNodeList", 3),
          new SlurmKeyword("NodeList", 8),
          new SlurmKeyword("ReqNodeList", 8),
          new SlurmKeyword("Features", 1),
          new SlurmKeyword("Gres", 2),
          new SlurmKeyword("Licenses", 1),
          new SlurmKeyword("Deadline", 3),
          new SlurmKeyword("WorkDir", 2),
          new SlurmKeyword("TimeMin", 5),
          new SlurmKeyword("Prefer", 3),
          new SlurmKeyword("SiteFactor", 5),
          new SlurmKeyword("Reboot", 3),
          new SlurmKeyword("DelayBoot", 5),
          new SlurmKeyword("UserId", 3),
          new SlurmKeyword("ResetAccrueTime", 3));

  private static final SlurmKeyword JOB_ID = new SlurmKeyword("JobId", 3);
  private static final SlurmKeyword TIME_LIMIT = new SlurmKeyword("TimeLimit", 5);
  private static final SlurmKeyword NAME = new SlurmKeyword("Name", 2);
  private static final SlurmKeyword JOB_NAME = new SlurmKeyword("JobName", 4);
  private static final SlurmKeyword PARTITION = new SlurmKeyword("Partition", 2);
  private static final SlurmKeyword ACCOUNT = new SlurmKeyword("Account", 1);
  private static final SlurmKeyword DEPENDENCY = new SlurmKeyword("Dependency", 1);
  private static final SlurmKeyword START_TIME = new SlurmKeyword("StartTime", 2);
  private static final SlurmKeyword ELIGIBLE_TIME = new SlurmKeyword("EligibleTime", 2);
  private static final SlurmKeyword MAIL_TYPE = new SlurmKeyword("MailType", 5);
  private static final SlurmKeyword MAIL_USER = new SlurmKeyword("MailUser", 5);

  private ScontrolUpdate() {}

  /**
   * The update {@code words} (what follows {@code update}, or {@code update job}) ask for.
   *
   * @param clock for StartTime's relative forms ({@code now+1hour})
   */
  public static Update of(List<String> words, Clock clock) throws RefusedException {
    entity(words);
    String jobs = null;
    String partition = null;
    List<Attribute> attributes = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      int eq = word.indexOf('=');
      String tag;
      String value;
      if (eq >= 0) {
        tag = word.substring(0, eq);
        value = word.substring(eq + 1);
      } else if (i + 1 < words.size()) {
        tag = word;
        value = words.get(++i);
      } else {
        throw new RefusedException("Invalid input: " + word + "\nRequest aborted");
      }
      if (tag.endsWith("+") || tag.endsWith("-")) {
        throw new RefusedException(
            "scontrol: error: "
                + tag
                + "= (adding or taking away) is not supported by Berth's scontrol yet;"
                + " give the new value");
      }
      if (JOB_ID.named(tag)) {
        jobs = value;
      } else if (TIME_LIMIT.named(tag)) {
        attributes.add(resource("walltime", walltime(value)));
      } else if (NAME.named(tag) || JOB_NAME.named(tag)) {
        attributes.add(attribute("Job_Name", value));
      } else if (PARTITION.named(tag)) {
        partition = value;
      } else if (ACCOUNT.named(tag)) {
        attributes.add(attribute("Account_Name", value));
      } else if (DEPENDENCY.named(tag)) {
        attributes.add(
            value.isEmpty()
                ? Attribute.newBuilder().setName("depend").setOp(Attribute.Op.UNSET).build()
                : attribute("depend", dependency(value)));
      } else if (START_TIME.named(tag) || ELIGIBLE_TIME.named(tag)) {
        attributes.add(attribute("Execution_Time", startTime(value, clock)));
      } else if (MAIL_TYPE.named(tag)) {
        attributes.add(attribute("Mail_Points", mailPoints(value)));
      } else if (MAIL_USER.named(tag)) {
        attributes.add(attribute("Mail_Users", value));
      } else if (NOT_HONOURED.stream().anyMatch(k -> k.named(tag))) {
        String name = NOT_HONOURED.stream().filter(k -> k.named(tag)).findFirst().get().name();
        throw new RefusedException(
            "scontrol: error: "
                + name
                + " cannot be updated by Berth's scontrol yet (docs/slurm.md lists what can)");
      } else {
        throw new RefusedException(
            "Update of this parameter is not supported: " + word + "\nRequest aborted");
      }
    }
    if (attributes.isEmpty() && partition == null) {
      throw new RefusedException("No changes specified");
    }
    if (jobs == null) {
      throw new RefusedException(
          "scontrol: error: Berth's scontrol finds the job to update by its JobId only (yet)");
    }
    return new Update(jobs, List.copyOf(attributes), partition);
  }

  /** The other things Slurm's scontrol updates, named by a key of theirs. */
  private static final List<SlurmKeyword> OTHER_ENTITIES =
      List.of(
          new SlurmKeyword("NodeName", 3),
          new SlurmKeyword("PartitionName", 3),
          new SlurmKeyword("StepId", 4),
          new SlurmKeyword("FrontendName", 2),
          new SlurmKeyword("ReservationName", 3),
          new SlurmKeyword("SlurmctldDebug", 2));

  /**
   * Refuses an update of anything but jobs, and one that names nothing to update, as Slurm's
   * _update_it tells them apart: by the first key that names a job or another entity.
   */
  private static void entity(List<String> words) throws RefusedException {
    for (String word : words) {
      int eq = word.indexOf('=');
      String tag = eq < 0 ? word : word.substring(0, eq);
      if (JOB_ID.named(tag) || new SlurmKeyword("JobNAME", 3).named(tag)) {
        return;
      }
      for (SlurmKeyword other : OTHER_ENTITIES) {
        if (other.named(tag)) {
          throw new RefusedException(
              "scontrol: error: Berth's scontrol updates jobs only (yet), not " + other.name());
        }
      }
    }
    throw new RefusedException(
        "No valid entity in update command\n"
            + "Input line must include \"NodeName\", \"PartitionName\", \"Reservation\","
            + " \"JobId\", or \"SlurmctldDebug\"");
  }

  /** TimeLimit in Slurm's forms; UNLIMITED and INFINITE as no limit (walltime 0 is refused). */
  private static String walltime(String value) throws RefusedException {
    try {
      OptionalLong seconds = SlurmValues.timeLimit(value);
      if (seconds.isEmpty()) {
        throw new RefusedException(
            "scontrol: error: TimeLimit="
                + value
                + ": Berth's scontrol cannot take a job's time limit away; give a new one");
      }
      return Long.toString(seconds.getAsLong());
    } catch (SbatchException e) {
      throw new RefusedException("scontrol: error: Invalid TimeLimit value");
    }
  }

  private static String startTime(String value, Clock clock) throws RefusedException {
    try {
      return Long.toString(SlurmRequests.begin(value, clock));
    } catch (SbatchException e) {
      throw new RefusedException("scontrol: error: Invalid StartTime specification: " + value);
    }
  }

  private static String mailPoints(String value) throws RefusedException {
    try {
      return SlurmRequests.mailPoints(value);
    } catch (SbatchException e) {
      throw new RefusedException("Invalid MailType: " + value);
    }
  }

  /**
   * sbatch's --dependency, refused in scontrol's words; singleton is resolved when a job is
   * submitted, so an update cannot add it.
   */
  private static String dependency(String value) throws RefusedException {
    try {
      String depend = SlurmRequests.depend("Dependency", "Berth", value);
      if (java.util.Arrays.asList(depend.split(",")).contains("singleton")) {
        throw SbatchException.failed(
            "Dependency="
                + value
                + ": singleton is not supported by Berth yet (after, afterany,"
                + " afterok and afternotok are; sbatch takes singleton)");
      }
      return depend;
    } catch (SbatchException e) {
      throw new RefusedException("scontrol: error: " + e.reason());
    }
  }

  private static Attribute attribute(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).build();
  }

  private static Attribute resource(String resource, String value) {
    return Attribute.newBuilder()
        .setName("Resource_List")
        .setResource(resource)
        .setValue(value)
        .build();
  }
}

package dev.berth.tools.tracejob;

import dev.berth.core.AttributeNames;
import dev.berth.core.CpuRanges;
import dev.berth.core.Durations;
import dev.berth.core.Sizes;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobExited;
import dev.berth.proto.ResourcesUsed;
import dev.berth.tools.qstat.JobAttributeList;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * The text of tracejob's lines for one event, worded as Torque's server log and accounting records
 * word them: server lines ({@code S}: "Job Queued at request of alice@host, owner = ...") and the
 * accounting record ({@code A}: "queue=batch", the start and end records, "requestor=...").
 */
final class TraceMessages {
  private TraceMessages() {}

  /** The server-log lines for {@code event}, given the job as it was before it. */
  static List<String> server(Event event, Job job) {
    String actor = event.getActor();
    switch (event.getBodyCase()) {
      case JOB_SUBMITTED:
        {
          Job submitted = event.getJobSubmitted().getJob();
          return List.of(
              "enqueuing into "
                  + submitted.getQueue()
                  + ", state "
                  + submitted.getStateValue()
                  + " hop 1",
              "Job Queued at request of "
                  + actor
                  + ", owner = "
                  + submitted.getOwner()
                  + ", job name = "
                  + submitted.getName()
                  + ", queue = "
                  + submitted.getQueue());
        }
      case JOB_HELD:
        return List.of(
            "Holds " + letters(event.getJobHeld().getHolds()) + " set at request of " + actor);
      case JOB_RELEASED:
        return List.of(
            "Holds "
                + letters(event.getJobReleased().getHolds())
                + " released at request of "
                + actor);
      case JOB_ALTERED:
        return altered(
            actor, event.getJobAltered().getChangedList(), event.getJobAltered().getJob());
      case SUBJOB_ALTERED:
        // what changed is all a subjob's event carries, and all these lines show
        return altered(
            actor,
            event.getSubjobAltered().getChangedList(),
            event.getSubjobAltered().getChanges().getSet());
      case JOB_DISPATCHED:
        return List.of(
            "Job Run at request of "
                + actor
                + " on exec_host "
                + CpuRanges.execHost(event.getJobDispatched().getExecNodesList()));
      case JOB_STARTED:
        return List.of("Started, pid = " + event.getJobStarted().getSessionId());
      case JOB_EXITED:
        return exited(event.getJobExited(), job);
      case JOB_DELETED:
        return List.of(deleted(actor, event.getJobDeleted().getReason()));
      case JOB_KILL_REQUESTED:
        if (event.getJobKillRequested().getRerun()) {
          return List.of("Job Rerun at request of " + actor, "Job sent signal SIGTERM on rerun");
        }
        return List.of(
            deleted(actor, event.getJobKillRequested().getReason()),
            "Job sent signal SIGTERM on delete");
      case JOB_REQUEUED:
        {
          String reason = event.getJobRequeued().getReason();
          return List.of(
              "Job requeued at request of " + actor + (reason.isEmpty() ? "" : ": " + reason));
        }
      case JOB_SUSPENDED:
        return List.of(
            "Job suspended at request of " + actor + ": " + event.getJobSuspended().getReason());
      case JOB_SUSPEND_CONFIRMED:
        return List.of("Job suspended on every node; its CPUs are lent to preemptors' jobs");
      case JOB_RESUMED:
        return List.of("Job resumed at request of " + actor);
      case JOB_PURGED:
        return List.of("dequeuing from " + job.getQueue() + ", state COMPLETE");
      case JOB_RESTORED:
        return List.of("Job restored from a snapshot");
      case BODY_NOT_SET:
        return List.of("event " + event.getSeq() + " of a kind this tracejob does not know");
      default:
        return List.of(
            event.getBodyCase().name().toLowerCase(Locale.ROOT) + " at request of " + actor);
    }
  }

  /**
   * The accounting record for {@code event}, or the empty string; {@code job} is the job after it.
   */
  static String accounting(Event event, Job job) {
    switch (event.getBodyCase()) {
      case JOB_SUBMITTED:
        return field(AttributeNames.QUEUE, job.getQueue());
      case JOB_STARTED:
        return startRecord(job);
      case JOB_EXITED:
        return endRecord(job, event.getJobExited());
      case JOB_DELETED:
      case JOB_KILL_REQUESTED:
        return field("requestor", event.getActor());
      default:
        return "";
    }
  }

  /** A move (qmove), or the attributes a qalter changed, with {@code values} the new ones. */
  private static List<String> altered(String actor, List<String> changedNames, Job values) {
    if (changedNames.equals(List.of(AttributeNames.QUEUE))) {
      return List.of("Job moved to " + values.getQueue() + " at request of " + actor);
    }
    // A comment is the server's word on the job (why a node leaves it alone): shown whole.
    List<String> changed =
        changedNames.stream()
            .map(n -> n.equals(AttributeNames.COMMENT) ? n + " = " + values.getComment() : n)
            .toList();
    return List.of(
        "Job Modified at request of "
            + actor
            + (changed.isEmpty() ? "" : ": " + String.join(", ", changed)));
  }

  private static List<String> exited(JobExited exited, Job job) {
    List<String> lines = new ArrayList<>();
    String reason = exited.getReason();
    ResourcesUsed used = exited.getResourcesUsed();
    if (reason.equals("walltime") && job.getResources().getWalltime() > 0) {
      lines.add(
          "walltime " + used.getWalltime() + " exceeded limit " + job.getResources().getWalltime());
    } else if (reason.equals("memory") && job.getResources().getMem() > 0) {
      lines.add("mem " + used.getMem() + " exceeded limit " + job.getResources().getMem());
    } else if (!reason.isEmpty() && !reason.equals("deleted")) {
      lines.add("Job ended: " + reason);
    }
    lines.add(field("Exit_status", exited.getExitStatus()) + " " + usage(used));
    if (!exited.getOutputNote().isEmpty()) {
      lines.add("Post job file processing error: " + exited.getOutputNote());
    }
    return lines;
  }

  private static String deleted(String actor, String reason) {
    return "Job deleted at request of " + actor + (reason.isEmpty() ? "" : ": " + reason);
  }

  private static String letters(Holds holds) {
    return JobAttributeList.holdTypes(holds);
  }

  private static String usage(ResourcesUsed used) {
    return String.join(
            " ",
            resourceUsed("cput", Durations.format(used.getCput())),
            resourceUsed("mem", Sizes.formatKb(used.getMem())),
            resourceUsed("vmem", Sizes.formatKb(used.getVmem())),
            resourceUsed("walltime", Durations.format(used.getWalltime())))
        + (used.getOomKills() > 0 ? " " + resourceUsed("oom_kills", used.getOomKills()) : "");
  }

  /** Torque's S record: who, what, when, where. */
  private static String startRecord(Job job) {
    List<String> fields =
        new ArrayList<>(
            List.of(
                field("user", job.getEuser()),
                field("group", job.getEgroup()),
                field("jobname", job.getName()),
                field(AttributeNames.QUEUE, job.getQueue()),
                field(AttributeNames.CTIME, job.getCtime()),
                field(AttributeNames.QTIME, job.getQtime()),
                field(AttributeNames.ETIME, job.getEtime()),
                field("start", job.getStartTime()),
                field("owner", job.getOwner()),
                field(AttributeNames.EXEC_HOST, CpuRanges.execHost(job.getExecNodesList()))));
    new TreeMap<>(job.getResources().getValuesMap())
        .forEach(
            (name, value) -> fields.add(field(AttributeNames.RESOURCE_LIST + "." + name, value)));
    return String.join(" ", fields);
  }

  /** Torque's E record: the S record's fields, then session, end, exit status and usage. */
  private static String endRecord(Job job, JobExited exited) {
    return String.join(
        " ",
        startRecord(job),
        field("session", job.getSessionId()),
        field("end", exited.getEndTime()),
        field("Exit_status", exited.getExitStatus()),
        usage(exited.getResourcesUsed()));
  }

  /**
   * One {@code key=value} of a record. A key that is a job attribute (queue, ctime, exec_host,
   * Resource_List, resources_used) is core's {@link AttributeNames}; the others are the accounting
   * record's own words, as the server's accounting writes them.
   */
  private static String field(String key, Object value) {
    return key + "=" + value;
  }

  private static String resourceUsed(String resource, Object value) {
    return field(AttributeNames.RESOURCES_USED + "." + resource, value);
  }
}

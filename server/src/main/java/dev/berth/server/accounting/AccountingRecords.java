package dev.berth.server.accounting;

import dev.berth.core.AttributeNames;
import dev.berth.core.CpuRanges;
import dev.berth.core.UsedResources;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobExited;
import dev.berth.proto.NodeAllocation;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The accounting records an event makes, Torque 6's (server/accounting.c): Q when a job (each
 * subjob of an array) is queued, S when it starts, E when a job that started ends, D when someone
 * deletes it, A when it ends without having started for another reason (a failed start, a
 * dependency that can never be met), R when a started job is queued again. A pure function of the
 * event and the state on either side of it, so that the journal's replay makes the very same
 * records as the live server wrote.
 *
 * <p>Values are Torque's: epoch seconds for times, {@code node/cpus+...} for exec_host, resources
 * as qstat shows them except resources_used.cput in seconds, as Torque's accounting has it. A
 * value's whitespace is written as {@code _}: attributes are separated by spaces, so no job name or
 * account may pose as another attribute in what sites bill from. A key that is a job attribute
 * (queue, ctime, exec_host, Resource_List, ...) is core's {@link AttributeNames}; user, group,
 * account, jobname, start, owner, session, end, Exit_status and the rest are the record's own
 * words; task_number, an sbatch array task's own job number, is Berth's.
 */
public final class AccountingRecords {
  /** Berth's own key: the job number of a task of an sbatch array (Slurm's JobIDRaw). */
  static final String TASK_NUMBER = "task_number";

  private AccountingRecords() {}

  public static List<AccountingRecord> of(ClusterState before, Event e, ClusterState after) {
    long at = e.getTime();
    List<AccountingRecord> records = new ArrayList<>();
    switch (e.getBodyCase()) {
      case JOB_SUBMITTED -> {
        Job job = e.getJobSubmitted().getJob();
        for (Job queued : queuedJobs(job, after)) {
          records.add(new AccountingRecord(at, 'Q', queued.getId(), List.of(queue(queued))));
        }
      }
      case JOB_STARTED ->
          after
              .job(e.getJobStarted().getJobId())
              .ifPresent(j -> records.add(new AccountingRecord(at, 'S', j.getId(), common(j))));
      case JOB_EXITED -> {
        JobExited x = e.getJobExited();
        Optional<Job> was = before.job(x.getJobId());
        Optional<Job> is = after.job(x.getJobId());
        if (was.isPresent() && is.isPresent()) {
          records.add(
              was.get().getStartTime() > 0
                  ? new AccountingRecord(at, 'E', x.getJobId(), ended(is.get(), x))
                  : new AccountingRecord(at, 'A', x.getJobId(), List.of()));
        }
      }
      case JOB_DELETED -> {
        String id = e.getJobDeleted().getJobId();
        if (before.job(id).isPresent()) {
          records.add(deleted(at, id, e.getActor()));
        }
      }
      case JOB_KILL_REQUESTED -> {
        // a qdel of a running job (one being rerun too); a preemption's or a qrerun's kill is no
        // one's delete
        String id = e.getJobKillRequested().getJobId();
        if (e.getJobKillRequested().getPreemptedBy().isEmpty()
            && !e.getJobKillRequested().getRerun()
            && isPerson(e.getActor())
            && before
                .job(id)
                .filter(
                    j -> j.getDeleteRequestedBy().isEmpty() || !j.getRerunRequestedBy().isEmpty())
                .isPresent()) {
          records.add(deleted(at, id, e.getActor()));
        }
      }
      case JOB_REQUEUED -> {
        String id = e.getJobRequeued().getJobId();
        if (before.job(id).filter(j -> j.getStartTime() > 0).isPresent()) {
          records.add(new AccountingRecord(at, 'R', id, List.of()));
        }
      }
      case JOB_ALTERED -> {
        // qmove and qorder across queues: the job entered another queue, as Torque records it
        Job altered = e.getJobAltered().getJob();
        if (e.getJobAltered().getChangedList().contains(AttributeNames.QUEUE)
            && altered.getArrayRequest().isEmpty()) {
          records.add(new AccountingRecord(at, 'Q', altered.getId(), List.of(queue(altered))));
        }
      }
      case SUBJOB_ALTERED -> {
        // the subjobs of an array that qmove moved
        if (e.getSubjobAltered().getChangedList().contains(AttributeNames.QUEUE)) {
          after
              .job(e.getSubjobAltered().getJobId())
              .ifPresent(
                  j -> records.add(new AccountingRecord(at, 'Q', j.getId(), List.of(queue(j)))));
        }
      }
      default -> {
        // no record
      }
    }
    return records;
  }

  /** A plain job itself; an array job its subjobs, made with it (the array itself has none). */
  private static List<Job> queuedJobs(Job job, ClusterState after) {
    if (job.getArrayRequest().isEmpty()) {
      return after.job(job.getId()).map(List::of).orElse(List.of());
    }
    return after.jobs().stream()
        .filter(j -> j.getArrayParent().equals(job.getId()))
        .sorted(Comparator.comparingInt(Job::getArrayIndex))
        .toList();
  }

  /** D with the requestor when a person deleted it; A when the server did (a dependency). */
  private static AccountingRecord deleted(long at, String id, String actor) {
    return isPerson(actor)
        ? new AccountingRecord(at, 'D', id, List.of(field("requestor", value(actor))))
        : new AccountingRecord(at, 'A', id, List.of());
  }

  /** An event's actor is {@code user@host} for a person, a word for the server's own parts. */
  private static boolean isPerson(String actor) {
    return actor.indexOf('@') > 0;
  }

  private static String queue(Job job) {
    return field(AttributeNames.QUEUE, value(job.getQueue()));
  }

  /** S's attributes, and the first part of E's, in Torque's order. */
  private static List<String> common(Job job) {
    List<String> a = new ArrayList<>();
    a.add(field("user", value(job.getEuser())));
    a.add(field("group", value(job.getEgroup())));
    if (!job.getAccount().isEmpty()) {
      a.add(field("account", value(job.getAccount())));
    }
    a.add(field("jobname", value(job.getName())));
    a.add(queue(job));
    a.add(field(AttributeNames.CTIME, job.getCtime()));
    a.add(field(AttributeNames.QTIME, job.getQtime()));
    a.add(field(AttributeNames.ETIME, job.getEtime()));
    a.add(field(AttributeNames.START_COUNT, job.getRunCount()));
    a.add(field("start", job.getStartTime()));
    a.add(field("owner", value(job.getOwner())));
    if (job.getTaskNumber() > 0) {
      a.add(field(TASK_NUMBER, job.getTaskNumber()));
    }
    if (job.getExecNodesCount() > 0) {
      a.add(field(AttributeNames.EXEC_HOST, CpuRanges.execHost(job.getExecNodesList())));
    }
    new TreeMap<>(job.getResources().getValuesMap())
        .forEach((name, v) -> a.add(field(AttributeNames.RESOURCE_LIST + "." + name, value(v))));
    return a;
  }

  private static List<String> ended(Job job, JobExited x) {
    List<String> a = common(job);
    a.add(field("session", job.getSessionId()));
    if (job.getExecNodesCount() > 0) {
      a.add(
          field(
              "total_execution_slots",
              job.getExecNodesList().stream().mapToInt(NodeAllocation::getCpusCount).sum()));
      a.add(
          field(
              "unique_node_count",
              job.getExecNodesList().stream().map(NodeAllocation::getNode).distinct().count()));
    }
    a.add(field("end", x.getEndTime()));
    a.add(field("Exit_status", x.getExitStatus()));
    for (UsedResources.Item item : UsedResources.of(x.getResourcesUsed())) {
      String v =
          item.name().equals("cput") ? Long.toString(x.getResourcesUsed().getCput()) : item.value();
      a.add(field(AttributeNames.RESOURCES_USED + "." + item.name(), v));
    }
    return a;
  }

  private static String field(String key, Object value) {
    return key + "=" + value;
  }

  /** The value with any whitespace or control character as {@code _}. */
  static String value(String v) {
    StringBuilder out = new StringBuilder(v.length());
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      boolean blank = Character.isWhitespace(c) || Character.isSpaceChar(c);
      out.append(blank || Character.isISOControl(c) ? '_' : c);
    }
    return out.toString();
  }
}

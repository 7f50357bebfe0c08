package dev.berth.mom;

import dev.berth.proto.NodeHello;
import dev.berth.proto.UnaccountedJob;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The jobs a mom cannot account for: those whose node-local record it cannot read, or every job
 * when it cannot read its records at all. Their processes may still run, so the mom leaves their
 * processes and cgroups as they are (no orphan removal) and acts on them no more: it does not start
 * them, join them, kill them or report their end, since it could not tell what it would act on. The
 * server hears of them in the hello and keeps them running, and the node goes offline with the
 * reason as its note, until an administrator fixes the records or purges the jobs.
 */
final class Unaccounted {
  private final Map<String, String> jobs;
  private final String everything;
  private final Set<String> mentioned = new HashSet<>();

  private Unaccounted(Map<String, String> jobs, String everything) {
    this.jobs = jobs;
    this.everything = everything;
  }

  /** Jobs whose record cannot be read, each with what is wrong with it; may be none. */
  static Unaccounted records(Map<String, String> unreadable) {
    return new Unaccounted(new TreeMap<>(unreadable), "");
  }

  /** No record can be read ({@code why}): any job may be one this node runs. */
  static Unaccounted everything(String why) {
    return new Unaccounted(Map.of(), why);
  }

  boolean covers(String jobId) {
    return !everything.isEmpty() || jobs.containsKey(jobId);
  }

  /** Job cgroups without a record are a crash's leftovers only if every record can be read. */
  boolean allowsOrphanRemoval() {
    return everything.isEmpty();
  }

  Set<String> jobIds() {
    return jobs.keySet();
  }

  /** Why this node cannot act on the job, as its answers and log say it. */
  String why(String node, String jobId) {
    return everything.isEmpty()
        ? "node " + node + " cannot read its record of job " + jobId + " (" + jobs.get(jobId) + ")"
        : "node " + node + " cannot read its job records (" + everything + ")";
  }

  /**
   * True the first time it is asked about {@code order} (a kind of order and a job): orders the mom
   * does not carry out are logged once, not at every resend.
   */
  boolean firstMention(String order) {
    return mentioned.add(order);
  }

  /** What takes the node offline, as its note will say; empty when every record could be read. */
  Optional<String> trouble() {
    String leftAlone = " are left as they are until an administrator acts";
    if (!everything.isEmpty()) {
      return Optional.of(
          "cannot read its job records ("
              + everything
              + "): the processes and cgroups of every job on this node"
              + leftAlone);
    }
    if (jobs.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "cannot read its records of jobs "
            + jobs.entrySet().stream()
                .map(j -> j.getKey() + " (" + j.getValue() + ")")
                .collect(Collectors.joining(", "))
            + ": their processes and cgroups"
            + leftAlone);
  }

  /** Tells the server, in the node's hello, which of its jobs this mom cannot account for. */
  void describe(NodeHello.Builder hello) {
    jobs.forEach(
        (id, reason) ->
            hello.addUnaccountedJobs(UnaccountedJob.newBuilder().setJobId(id).setReason(reason)));
    hello.setUnreadableRecords(everything);
  }
}

package dev.berth.server.query;

import dev.berth.core.BadValueException;
import dev.berth.core.BerthVersion;
import dev.berth.core.JobIds;
import dev.berth.core.MomStatus;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobHistory;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.ManageReply;
import dev.berth.proto.Node;
import dev.berth.proto.NodeGpuSlot;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueList;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatJobs;
import dev.berth.proto.TraceReply;
import dev.berth.scheduler.Plan;
import dev.berth.server.accounting.FinishedJobs;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.command.schedule.WalltimeEstimate;
import dev.berth.server.journal.Journal;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.JobCounts;
import dev.berth.server.state.NodeUsage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Read-only requests (qstat, pbsnodes, tracejob, qmgr list and print), answered from one immutable
 * committed state without going through the journal pipeline.
 */
public final class Queries {
  /** A running job without a walltime with the estimate the scheduler plans its end with. */
  private static Job withEstimate(Job job, ClusterState s) {
    return WalltimeEstimate.of(job, s)
        .map(
            e ->
                job.toBuilder()
                    .setPlannedWalltime(e.seconds())
                    .setPlannedWalltimeSource(e.source())
                    .build())
        .orElse(job);
  }

  private static final Comparator<Job> JOB_ORDER =
      Comparator.comparingLong(Job::getNumber)
          .thenComparing(j -> !j.getArrayParent().isEmpty())
          .thenComparingInt(Job::getArrayIndex);

  private final String serverName;
  private final Journal journal;
  private final NodeTelemetry telemetry;
  private final Clock clock;
  private final Supplier<Optional<Plan>> lastPlan;
  private final ReplyBudget budget;
  private final Path accounting;
  private final java.time.ZoneId zone;

  /** More reservations than may exist at once: a request naming more is refused. */
  private static final int MAX_RESERVATION_IDS = 1000;

  /**
   * @param lastPlan the last scheduling cycle's plan, for why queued jobs wait (empty on a server
   *     that has not scheduled)
   * @param budget the most one reply may take
   * @param accounting the directory of the server's accounting files, the history of finished jobs
   *     (null: it keeps none)
   * @param zone the server's time zone, whose days name those files
   */
  public Queries(
      String serverName,
      Journal journal,
      NodeTelemetry telemetry,
      Clock clock,
      Supplier<Optional<Plan>> lastPlan,
      ReplyBudget budget,
      Path accounting,
      java.time.ZoneId zone) {
    this.serverName = serverName;
    this.accounting = accounting;
    this.zone = zone;
    this.journal = journal;
    this.telemetry = telemetry;
    this.clock = clock;
    this.lastPlan = lastPlan;
    this.budget = budget;
  }

  /** The most finished jobs one history answer lists. */
  static final int MAX_HISTORY_JOBS = 100_000;

  /**
   * qstat -H: the finished jobs of the accounting files that the caller may see, of the users and
   * jobs asked for.
   */
  private JobList history(ClusterState s, Caller caller, JobHistory r) {
    if (accounting == null) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          "this server keeps no accounting files, so it has no history of finished jobs");
    }
    if (r.getUsersCount() > MAX_HISTORY_NAMES || r.getJobIdsCount() > MAX_HISTORY_NAMES) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          "ask for the history of at most " + MAX_HISTORY_NAMES + " users or jobs at a time");
    }
    java.util.Set<String> users = new java.util.HashSet<>(r.getUsersList());
    if (!Permissions.maySeeOthersJobs(s, caller)) {
      // only the caller's own: the others' records are passed over unparsed
      if (!users.isEmpty() && !users.contains(caller.user())) {
        return JobList.getDefaultInstance();
      }
      users = java.util.Set.of(caller.user());
    }
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (String id : r.getJobIdsList()) {
      ids.add(JobIds.canonical(id, serverName));
    }
    FinishedJobs.Selection selection =
        new FinishedJobs.Selection(java.util.Set.copyOf(users), java.util.Set.copyOf(ids));
    List<String> days =
        FinishedJobs.days(r.getFrom(), r.getTo(), java.time.LocalDate.now(clock.withZone(zone)));
    // Sized as the jobs are read: the reading stops at the reply's bound, so that what one request
    // holds is bounded by the reply limit, not by how many jobs the files keep.
    ReplyBudget.Reply size =
        budget.reply("the history asked for", "ask for fewer days, users or jobs");
    return JobList.newBuilder()
        .addAllJobs(
            FinishedJobs.read(
                accounting,
                days,
                selection,
                // the selection has checked the ids; a record of another layout than Berth's and
                // Torque's (user= first) is checked for its user here
                job -> {
                  boolean shown =
                      (selection.users().isEmpty() || selection.users().contains(job.getEuser()))
                          && Permissions.maySee(s, caller, job);
                  if (shown) {
                    size.add(JobList.JOBS_FIELD_NUMBER, job);
                  }
                  return shown;
                },
                MAX_HISTORY_JOBS))
        .build();
  }

  /** The most users or job ids one history request may name. */
  private static final int MAX_HISTORY_NAMES = 10_000;

  public Response.Builder answer(ClusterState s, Caller caller, Request r) {
    try {
      return switch (r.getBodyCase()) {
        case STAT_JOBS -> Response.newBuilder().setJobs(jobs(s, caller, r.getStatJobs()));
        case JOB_HISTORY -> Response.newBuilder().setJobs(history(s, caller, r.getJobHistory()));
        case STAT_QUEUES ->
            Response.newBuilder().setQueues(queues(s, r.getStatQueues().getNamesList()));
        case STAT_SERVER -> Response.newBuilder().setServer(server(s));
        case STAT_NODES ->
            Response.newBuilder().setNodes(nodes(s, caller, r.getStatNodes().getNamesList()));
        case TRACE_JOB ->
            Response.newBuilder().setTrace(trace(s, caller, r.getTraceJob().getJobId()));
        case STAT_FAIR_SHARE ->
            Response.newBuilder()
                .setFairShare(FairShareReport.of(s, caller, r.getStatFairShare(), clock.millis()));
        case STAT_RESERVATIONS ->
            Response.newBuilder()
                .setReservations(reservations(s, r.getStatReservations().getIdsList()));
        case MANAGE -> Response.newBuilder().setManage(manage(s, r.getManage()));
        default ->
            throw new CommandException(
                Error.Code.UNKNOWN_REQUEST, r.getBodyCase() + " is not a query");
      };
    } catch (CommandException e) {
      return Response.newBuilder().setError(e.toError());
    }
  }

  private JobList jobs(ClusterState s, Caller caller, StatJobs q) {
    List<Job> result = new ArrayList<>();
    if (q.getJobIdsCount() == 0) {
      for (Job j : s.jobs()) {
        boolean subjob = !j.getArrayParent().isEmpty();
        if ((!subjob || q.getIncludeSubjobs()) && Permissions.maySee(s, caller, j)) {
          result.add(j);
        }
      }
    } else {
      for (String text : q.getJobIdsList()) {
        Job j = visible(s, caller, text);
        result.add(j);
        if (q.getIncludeSubjobs() && !j.getArrayRequest().isEmpty()) {
          s.jobs().stream().filter(x -> x.getArrayParent().equals(j.getId())).forEach(result::add);
        }
      }
    }
    result.sort(JOB_ORDER);
    JobList.Builder list = JobList.newBuilder().setServer(serverName);
    ReplyBudget.Reply size = budget.reply(subject(q), fewerJobs(q));
    SchedulingNotes notes = null;
    for (Job j : result) {
      if ((j.getState() == JobState.QUEUED || j.getState() == JobState.HELD) && notes == null) {
        notes = new SchedulingNotes(s, clock.millis() / 1000, lastPlan.get());
      }
      Job shown = notes == null ? j : notes.of(j);
      if (j.getState() == JobState.RUNNING) {
        shown = withEstimate(shown, s);
      }
      if (j.getState() == JobState.RUNNING && j.getStartTime() > 0) {
        Job running = shown;
        shown =
            telemetry
                .soFar(
                    running,
                    clock.millis() / 1000,
                    node -> s.node(node).filter(n -> !n.getDown()).isPresent())
                .map(u -> running.toBuilder().setResourcesUsed(u).build())
                .orElse(running);
      }
      Job sent = PrivateParts.job(shown, !q.getBrief() && Permissions.mayReadPrivate(s, caller, j));
      size.add(JobList.JOBS_FIELD_NUMBER, sent);
      list.addJobs(sent);
    }
    return list.build();
  }

  /** The reply to a qstat, as its refusal names it; the job ids asked for, when few. */
  private static String subject(StatJobs q) {
    int n = q.getJobIdsCount();
    if (n == 0 || n > 3) {
      return "the reply";
    }
    return "the reply about " + String.join(", ", q.getJobIdsList());
  }

  /** How to ask for a smaller reply than {@code q}'s. */
  private static String fewerJobs(StatJobs q) {
    List<String> without = new ArrayList<>();
    if (q.getIncludeSubjobs()) {
      without.add("-t");
    }
    if (!q.getBrief()) {
      without.add("-f");
    }
    return "ask for fewer jobs at a time"
        + (without.isEmpty() ? "" : ", or without " + String.join(" or ", without));
  }

  private Job visible(ClusterState s, Caller caller, String text) {
    String id = canonical(text);
    Optional<Job> job = s.named(id);
    if (job.isEmpty() || !Permissions.maySee(s, caller, job.get())) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, "Unknown Job Id " + id);
    }
    return job.get();
  }

  private String canonical(String text) {
    try {
      return JobIds.canonical(text, serverName);
    } catch (BadValueException e) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, e.getMessage());
    }
  }

  private QueueList queues(ClusterState s, List<String> names) {
    QueueList.Builder list = QueueList.newBuilder().setServer(serverName);
    for (Queue q : selected(s.queues(), names, "queue")) {
      JobCounts c = s.counts(q.getName());
      QueueStatus.Builder status =
          QueueStatus.newBuilder().setQueue(q).putAllStateCount(stateCounts(c));
      list.addQueues(status.setTotalJobs(c.total()));
    }
    return list.build();
  }

  /** pbs_rstat: every reservation, or those named; anyone may list them, as in OpenPBS. */
  private ReservationList reservations(ClusterState s, List<String> ids) {
    if (ids.size() > MAX_RESERVATION_IDS) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "pbs_rstat names " + ids.size() + " reservations; at most " + MAX_RESERVATION_IDS);
    }
    ReservationList.Builder list = ReservationList.newBuilder().setServer(serverName);
    Collection<Reservation> chosen =
        ids.isEmpty()
            ? s.reservations().values()
            : ids.stream().map(id -> ReservationCommands.find(s, id)).distinct().toList();
    for (Reservation r : chosen) {
      list.addReservations(
          ReservationStatus.newBuilder()
              .setReservation(r)
              .addAllUsers(ReservationCommands.users(s, r))
              .putAllStateCount(stateCounts(s.counts(r.getQueue()))));
    }
    return list.build();
  }

  ServerStatus server(ClusterState s) {
    JobCounts c = s.counts();
    Map<String, String> attributes = new TreeMap<>();
    attributes.put(ServerAttributeNames.SERVER_STATE, "Active");
    attributes.put(ServerAttributeNames.PBS_VERSION, BerthVersion.NUMBER);
    ServerAttributes.defaults().forEach(attributes::put);
    attributes.putAll(s.serverAttributes());
    attributes.put(ServerAttributeNames.NEXT_JOB_NUMBER, Long.toString(s.nextJobNumber()));
    ServerStatus.Builder status = ServerStatus.newBuilder().setName(serverName);
    // total_jobs and state_count travel in their own fields, not among the attributes.
    return status
        .putAllStateCount(stateCounts(c))
        .setTotalJobs(c.total())
        .putAllAttributes(attributes)
        .build();
  }

  /** Counts by state letter (Q H W R E C), zeros included. */
  private static Map<String, Integer> stateCounts(JobCounts byState) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (JobState state : JobState.values()) {
      if (state != JobState.JOB_STATE_UNSPECIFIED && state != JobState.UNRECOGNIZED) {
        counts.put(letter(state), byState.count(state));
      }
    }
    return counts;
  }

  /**
   * pbsnodes and momctl: each node with its mom's last report and the jobs that hold its CPUs and
   * GPUs, of which a caller sees the ids of the jobs qstat would show them ({@link
   * Permissions#maySee}); the node's state still counts every CPU in use.
   */
  private NodeList nodes(ClusterState s, Caller caller, List<String> names) {
    Predicate<String> visible = id -> Permissions.maySee(s, caller, id);
    NodeList.Builder list = NodeList.newBuilder();
    for (Node n : selected(s.nodes(), names, "node")) {
      NodeUsage u = s.usage(n.getName());
      NodeStatus.Builder status =
          NodeStatus.newBuilder()
              .setNode(
                  n.toBuilder()
                      .putAllStatus(visibleJobs(telemetry.status(n.getName()), visible))
                      .setLastStatusTime(telemetry.reportedAt(n.getName())))
              .setState(stateWords(n, u));
      BiConsumer<Integer, String> cpuSlot =
          (cpu, job) -> {
            if (visible.test(job)) {
              status.addJobs(NodeJobSlot.newBuilder().setCpu(cpu).setJobId(job));
            }
          };
      u.cpuJobs().forEach(cpuSlot);
      // suspended jobs still hold their CPUs, a preemptor's job perhaps beside them
      u.lentCpus().forEach(cpuSlot);
      u.gpuJobs()
          .forEach(
              (gpu, job) -> {
                if (visible.test(job)) {
                  status.addGpuJobs(NodeGpuSlot.newBuilder().setGpu(gpu).setJobId(job));
                }
              });
      list.addNodes(status);
    }
    return list.build();
  }

  /** A mom's status items with only the {@code visible} ids left in its {@code jobs} item. */
  private static Map<String, String> visibleJobs(
      Map<String, String> items, Predicate<String> visible) {
    String jobs = items.get(MomStatus.JOBS);
    if (jobs == null) {
      return items;
    }
    Map<String, String> shown = new HashMap<>(items);
    shown.put(
        MomStatus.JOBS, String.join(" ", Arrays.stream(jobs.split(" ")).filter(visible).toList()));
    return shown;
  }

  /**
   * Torque's node state words: down, offline, job-exclusive (every CPU runs a job or is a suspended
   * job's), or free.
   */
  public static String stateWords(Node n, NodeUsage u) {
    List<String> words = new ArrayList<>();
    if (n.getDown() || !n.getRegistered()) {
      words.add("down");
    }
    if (n.getOffline()) {
      words.add("offline");
    }
    long taken =
        u.cpuJobs().size()
            + u.lentCpus().keySet().stream().filter(c -> !u.cpuJobs().containsKey(c)).count();
    if (!u.idle() && taken >= n.getCpuIdsCount()) {
      words.add("job-exclusive");
    }
    return words.isEmpty() ? "free" : String.join(",", words);
  }

  private TraceReply trace(ClusterState s, Caller caller, String text) {
    String id = canonical(text);
    List<Event> history = new ArrayList<>();
    // read no further than the reply may go (a job altered many times), and refused only to those
    // who may see the job
    ReplyBudget.Reply size = budget.reply("the history of " + id, "");
    CommandException tooLarge = null;
    try {
      journal.history(
          id,
          e -> {
            size.add(TraceReply.EVENTS_FIELD_NUMBER, e);
            history.add(e);
          });
    } catch (CommandException e) {
      tooLarge = e;
    }
    Optional<Job> live = s.job(id);
    boolean mayRead =
        live.isPresent()
            ? Permissions.mayReadPrivate(s, caller, live.get())
            : Permissions.isOperator(s, caller)
                || history.stream()
                    .filter(Event::hasJobSubmitted)
                    .anyMatch(e -> e.getJobSubmitted().getJob().getEuser().equals(caller.user()));
    boolean allowed = live.isPresent() ? Permissions.maySee(s, caller, live.get()) : mayRead;
    if (!allowed || history.isEmpty()) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, "Unknown Job Id " + id);
    }
    if (tooLarge != null) {
      throw tooLarge;
    }
    TraceReply.Builder reply = TraceReply.newBuilder();
    for (Event e : history) {
      reply.addEvents(PrivateParts.event(e, mayRead));
    }
    return reply.build();
  }

  private ManageReply manage(ClusterState s, Manage m) {
    ManageReply.Builder reply = ManageReply.newBuilder();
    switch (m.getObjectType()) {
      case SERVER -> {
        reply.setServer(server(s));
        if (m.getCommand() == Manage.Command.PRINT) {
          reply.addAllQueues(s.queues().values()); // print server replays the queues too
        }
      }
      case QUEUE -> reply.addAllQueues(selected(s.queues(), m.getNamesList(), "queue"));
      case NODE -> reply.addAllNodes(selected(s.nodes(), m.getNamesList(), "node"));
      default -> throw new CommandException(Error.Code.INVALID_REQUEST, "unknown qmgr object");
    }
    return reply.build();
  }

  private static <T> List<T> selected(Map<String, T> all, List<String> names, String what) {
    if (names.isEmpty()) {
      return new ArrayList<>(all.values());
    }
    Map<String, T> result = new LinkedHashMap<>();
    for (String name : names) {
      T item = all.get(name);
      if (item == null) {
        throw new CommandException(
            what.equals("queue") ? Error.Code.UNKNOWN_QUEUE : Error.Code.UNKNOWN_NODE,
            "Unknown " + what + " " + name);
      }
      result.put(name, item);
    }
    return new ArrayList<>(result.values());
  }

  static String letter(JobState state) {
    return switch (state) {
      case QUEUED -> "Q";
      case HELD -> "H";
      case WAITING -> "W";
      case RUNNING -> "R";
      case EXITING -> "E";
      case COMPLETED -> "C";
      default -> "?";
    };
  }
}

package dev.berth.server.command.job;

import dev.berth.core.ArrayRequest;
import dev.berth.core.AttributeNames;
import dev.berth.core.BadValueException;
import dev.berth.core.JobIds;
import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.JobSubmitted;
import dev.berth.proto.Queue;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitJob;
import dev.berth.proto.SubmitReply;
import dev.berth.proto.Variable;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.state.ClusterState;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * qsub: checks a submission against the state (queue, limits, dependencies, whether any node could
 * ever run it) and turns it into one JobSubmitted event.
 */
public final class SubmitJobs {
  private SubmitJobs() {}

  public static Outcome submit(ClusterState s, Caller caller, SubmitJob request, Context ctx) {
    Optional<Job> earlier = s.jobOfSubmission(request.getSubmissionId());
    if (!request.getSubmissionId().isEmpty() && earlier.isPresent()) {
      return repeated(earlier.get(), caller);
    }
    Permissions.requireMayRunAs(s, caller);
    checkScriptSize(s, request);
    Job.Builder job =
        Job.newBuilder()
            .setName("STDIN")
            .setJoinPath("n")
            .setKeepFiles("n")
            .setMailPoints("a")
            .setCheckpoint("u")
            .setRerunnable(true);
    for (Attribute a : request.getAttributesList()) {
      JobAttributes.apply(job, a);
    }
    if (job.hasContainer()) {
      ContainerAttributes.checkWhole(job.getContainer());
    }
    if (job.hasInteractive()) {
      interactive(job, request);
    }
    job.setSubmissionId(request.getSubmissionId());
    if ((job.getHolds().getOther() || job.getHolds().getSystem())
        && !Permissions.isOperator(s, caller)) {
      throw new CommandException(
          Error.Code.PERMISSION, "only operators and managers may set hold types o and s");
    }
    Queue queue = destination(s, job.getQueue(), ctx.serverName());
    checkQueueAccess(s, queue, caller);
    job.setQueue(queue.getName());
    long number = s.nextJobNumber();
    identify(job, number, caller, ctx);
    resources(job, queue, s);
    array(job, s, number, ctx.serverName());
    QueuedJobLimits.check(s, queue, caller.user(), Math.max(1, job.getArraySize()));
    paths(job, number);
    schedulingState(job, s, ctx);
    Job built = job.build();
    AttributeValues.checkTotal(built);
    Feasible.require(s, built, "job can never run");
    return new Outcome()
        .event(
            Event.newBuilder()
                .setJobSubmitted(
                    JobSubmitted.newBuilder().setJob(built).setScript(request.getScript())))
        .reply(
            Response.newBuilder().setSubmitted(SubmitReply.newBuilder().setJobId(built.getId())));
  }

  /**
   * qsub -I: never an array nor rerunnable (Torque's rules), and qsub -x's command only with it.
   */
  private static void interactive(Job.Builder job, SubmitJob request) {
    boolean asked =
        request.getAttributesList().stream()
            .anyMatch(
                a ->
                    a.getName().equals(AttributeNames.INTERACTIVE)
                        && JobAttributes.bool(AttributeNames.INTERACTIVE, a.getValue()));
    if (!asked) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          AttributeNames.INTER_CMD + " is for interactive jobs only (qsub -x needs -I)");
    }
    if (!job.getArrayRequest().isEmpty()) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "an interactive job cannot be a job array (qsub -I with -t)");
    }
    job.setRerunnable(false); // as in Torque: run again, it would wait for a qsub that is gone
  }

  /**
   * The same submission again: qsub asks once more when its connection broke before the reply (the
   * server died, or another took over), and gets the job the first request made.
   */
  private static Outcome repeated(Job earlier, Caller caller) {
    if (!earlier.getEuser().equals(caller.user())) {
      throw new CommandException(
          Error.Code.PERMISSION, "that submission id belongs to another user's job");
    }
    return new Outcome()
        .reply(
            Response.newBuilder().setSubmitted(SubmitReply.newBuilder().setJobId(earlier.getId())));
  }

  /** The queue a job goes to: {@code queue}, {@code queue@server}, {@code @server} or default. */
  static Queue destination(ClusterState s, String destination, String serverName) {
    String name = destination;
    int at = destination.indexOf('@');
    if (at >= 0) {
      String server = destination.substring(at + 1);
      if (!serverName.equals(server) && !serverName.startsWith(server + ".")) {
        throw new CommandException(
            Error.Code.UNKNOWN_QUEUE,
            "destination '"
                + destination
                + "': server '"
                + server
                + "' is not this server ("
                + serverName
                + ")");
      }
      name = destination.substring(0, at);
    }
    if (name.isEmpty()) {
      name = ServerAttributes.get(s, ServerAttributeNames.DEFAULT_QUEUE);
      if (name == null) {
        throw new CommandException(
            Error.Code.NO_DEFAULT_QUEUE,
            "no queue given and the server has no default_queue (qmgr -c 'set server default_queue = batch')");
      }
    }
    String queueName = name;
    return s.queue(queueName)
        .orElseThrow(
            () ->
                new CommandException(
                    Error.Code.UNKNOWN_QUEUE, "unknown queue '" + queueName + "'"));
  }

  private static void checkQueueAccess(ClusterState s, Queue q, Caller caller) {
    requireEnabled(q);
    if (!Permissions.isManager(s, caller)) {
      requireAdmits(q, caller.user());
    }
  }

  /** The queue takes jobs: enabled. */
  static void requireEnabled(Queue q) {
    if (!QueueAttributes.flag(q, QueueAttributeNames.ENABLED)) {
      throw new CommandException(
          Error.Code.QUEUE_DISABLED, "queue " + q.getName() + " is not enabled");
    }
  }

  /** The queue's acl_users, when enabled, names {@code user}. */
  static void requireAdmits(Queue q, String user) {
    if (QueueAttributes.flag(q, QueueAttributeNames.ACL_USER_ENABLE)) {
      String users = QueueAttributes.get(q, QueueAttributeNames.ACL_USERS).orElse("");
      if (!AttributeSpec.items(users).contains(user)) {
        throw new CommandException(
            Error.Code.PERMISSION,
            "user " + user + " is not in the acl_users of queue " + q.getName());
      }
    }
  }

  /** OpenPBS's jobscript_max_size: the journal keeps every script with its job. */
  private static void checkScriptSize(ClusterState s, SubmitJob request) {
    long max = ServerAttributes.bytes(s, ServerAttributeNames.JOBSCRIPT_MAX_SIZE);
    if (request.getScript().size() > max) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "jobscript max size exceeded: the script is "
              + request.getScript().size()
              + " bytes, the server's jobscript_max_size is "
              + ServerAttributes.get(s, ServerAttributeNames.JOBSCRIPT_MAX_SIZE)
              + " ("
              + max
              + " bytes)");
    }
  }

  private static void identify(Job.Builder job, long number, Caller caller, Context ctx) {
    long now = ctx.nowSeconds();
    job.setNumber(number)
        .setId(JobIds.of(number, ctx.serverName()))
        .setServer(ctx.serverName())
        .setOwner(caller.principal())
        .setEuser(caller.user())
        .setEgroup(caller.group())
        .setCtime(now)
        .setQtime(now)
        .setEtime(now)
        .setMtime(now);
    if (job.getSubmitHost().isEmpty() || caller.relayed()) {
      // A submit host's user submits from that host, whatever their qsub says: the name is the
      // one the relay's credential proves.
      job.setSubmitHost(caller.host());
    }
    String workDir = job.getWorkDir();
    if (workDir.isEmpty()) {
      // a variable, which may hold formatting characters; as a path the job's files take, not
      workDir = variable(job, "PBS_O_WORKDIR");
      AttributeValues.check("the working directory (PBS_O_WORKDIR)", workDir);
    }
    if (workDir.isEmpty()) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "the submission names no working directory (PBS_O_WORKDIR)");
    }
    job.setWorkDir(workDir);
    setVariable(job, "PBS_O_WORKDIR", workDir);
    setVariable(job, "PBS_O_QUEUE", job.getQueue());
    if (variable(job, "PBS_O_HOST").isEmpty()) {
      setVariable(job, "PBS_O_HOST", job.getSubmitHost());
    }
  }

  private static void resources(Job.Builder job, Queue queue, ClusterState s) {
    var values = job.getResources().getValuesMap();
    if (values.containsKey("nodes")
        && (values.containsKey("ncpus") || values.containsKey("procs"))) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "nodes cannot be combined with ncpus or procs (use -l nodes=N:ppn=M)");
    }
    job.setResources(ResourceLimits.withDefaults(job.getResources(), queue, s));
    MemoryPerNode.check(job.getResources());
    ResourceLimits.check(job.build(), queue, s);
    var r = job.getResourcesBuilder();
    int nodect =
        dev.berth.scheduler.Placement.groups(r.build()).stream().mapToInt(g -> g.getCount()).sum();
    r.putValues("nodect", Integer.toString(nodect));
    if (r.containsValues("nodes")) {
      r.putValues("neednodes", r.getValuesOrThrow("nodes"));
    }
  }

  private static void array(Job.Builder job, ClusterState s, long number, String server) {
    if (job.getArrayRequest().isEmpty()) {
      return;
    }
    int max =
        (int)
            Math.min(
                Integer.MAX_VALUE,
                ServerAttributes.number(s, ServerAttributeNames.MAX_JOB_ARRAY_SIZE));
    ArrayRequest request;
    try {
      request = ArrayRequest.parse(job.getArrayRequest(), max);
    } catch (BadValueException e) {
      throw new CommandException(Error.Code.BAD_ARRAY_REQUEST, e.getMessage());
    }
    job.setId(JobIds.arrayOf(number, server))
        .setArraySize(request.indices().size())
        .setArraySlotLimit(request.slotLimit());
    if (SlurmJobs.sbatch(job.build())) {
      slurmArray(job, request);
    }
  }

  /** The step of an array request's first range that has one (Slurm reads the number after ':'). */
  private static final Pattern FIRST_STEP = Pattern.compile(":(\\d+)");

  /**
   * What Slurm's controller adds to the environment of each task of an array: how many tasks, the
   * lowest and highest index, and the step (of the first range that has one, else 1).
   */
  private static void slurmArray(Job.Builder job, ArrayRequest request) {
    List<Integer> indices = request.indices();
    Matcher step = FIRST_STEP.matcher(job.getArrayRequest());
    variable(job, "SLURM_ARRAY_TASK_COUNT", indices.size());
    variable(job, "SLURM_ARRAY_TASK_MIN", indices.get(0));
    variable(job, "SLURM_ARRAY_TASK_MAX", indices.get(indices.size() - 1));
    variable(job, "SLURM_ARRAY_TASK_STEP", step.find() ? Integer.parseInt(step.group(1)) : 1);
  }

  private static void variable(Job.Builder job, String name, int value) {
    job.addVariables(Variable.newBuilder().setName(name).setValue(Integer.toString(value)));
  }

  /** Default output and error files: {@code <submit host>:<workdir>/<name>.o<number>}. */
  private static void paths(Job.Builder job, long number) {
    String base = job.getSubmitHost() + ":" + job.getWorkDir() + "/" + job.getName();
    job.setOutputPath(
        inDirectory(job.getOutputPath(), job.getName() + ".o" + number, base + ".o" + number));
    job.setErrorPath(
        inDirectory(job.getErrorPath(), job.getName() + ".e" + number, base + ".e" + number));
  }

  private static String inDirectory(String given, String file, String fallback) {
    if (given.isEmpty()) {
      return fallback;
    }
    return given.endsWith("/") ? given + file : given;
  }

  private static void schedulingState(Job.Builder job, ClusterState s, Context ctx) {
    job.setCgroupEnable(ServerAttributes.flag(s, ServerAttributeNames.CGROUP_ENABLE));
    String depend = job.getExtensionsOrDefault(AttributeNames.DEPEND, "");
    if (!depend.isEmpty()) {
      job.addAllDependencies(
          Dependencies.parse(depend, s, ctx.serverName(), job.getEuser(), job.getName()));
      job.removeExtensions(AttributeNames.DEPEND);
      switch (Dependencies.status(job.build(), s)) {
        case IMPOSSIBLE ->
            throw new CommandException(Error.Code.BAD_DEPENDENCY, Dependencies.why(job.build(), s));
        case PENDING -> job.setHolds(job.getHolds().toBuilder().setSystem(true));
        case MET -> {}
      }
    }
    Holds h = job.getHolds();
    if (h.getUser() || h.getOther() || h.getSystem()) {
      job.setState(JobState.HELD);
    } else if (job.getExecutionTime() > ctx.nowSeconds()) {
      job.setState(JobState.WAITING);
    } else {
      job.setState(JobState.QUEUED);
    }
  }

  static String variable(Job.Builder job, String name) {
    for (Variable v : job.getVariablesList()) {
      if (v.getName().equals(name)) {
        return v.getValue();
      }
    }
    return "";
  }

  private static void setVariable(Job.Builder job, String name, String value) {
    JobAttributes.apply(
        job,
        Attribute.newBuilder()
            .setName(AttributeNames.VARIABLE_LIST)
            .setValue(name + "=" + value)
            .build());
  }
}

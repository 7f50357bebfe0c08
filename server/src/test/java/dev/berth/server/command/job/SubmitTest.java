package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Dependency;
import dev.berth.proto.Error;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** qsub: what the decider accepts, what it makes of it, and how it explains a refusal. */
class SubmitTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes(); // n1 and n2, 4 CPUs each, no properties
  }

  /** The command is refused with this code and a message containing every fragment. */
  private void refusedSubmit(Error.Code code, List<Attribute> attributes, String... fragments) {
    int events = d.journal.size();
    refused(code, () -> d.submit(ALICE, attributes.toArray(Attribute[]::new)), fragments);
    assertEquals(events, d.journal.size(), "a refused submission records nothing");
  }

  @Test
  void aPlainSubmissionBecomesOneQueuedJob() {
    long number = d.state.nextJobNumber();
    int before = d.journal.size();
    String id = d.submit(ALICE, resource("walltime", "1:30:00"), attr("Job_Name", "train"));
    assertEquals(number + ".srv", id);
    assertEquals(before + 1, d.journal.size());
    assertTrue(d.journal.get(before).hasJobSubmitted());
    Job j = d.job(id);
    assertEquals(JobState.QUEUED, j.getState());
    assertEquals("batch", j.getQueue());
    assertEquals("alice@login1", j.getOwner());
    assertEquals("alice", j.getEuser());
    assertEquals("01:30:00", j.getResources().getValuesOrThrow("walltime"));
    assertEquals(5400, j.getResources().getWalltime());
    assertEquals("login1:/home/alice/train.o" + number, j.getOutputPath());
    assertEquals("login1:/home/alice/train.e" + number, j.getErrorPath());
    assertEquals(d.nowSeconds(), j.getQtime());
    assertTrue(j.getVariablesList().stream().anyMatch(v -> v.getName().equals("PBS_O_QUEUE")));
    assertEquals(number + 1, d.state.nextJobNumber());
  }

  private String submitWithId(Caller caller, String submissionId) {
    return d.submitWithId(caller, submissionId);
  }

  @Test
  void aRetriedSubmissionGetsTheJobTheFirstAttemptMade() {
    String first = submitWithId(ALICE, "5f0c-retry");
    int events = d.journal.size();
    assertEquals(first, submitWithId(ALICE, "5f0c-retry"), "the same job again");
    assertEquals(events, d.journal.size(), "and nothing new recorded");
    assertFalse(submitWithId(ALICE, "another").equals(first), "another id is another job");
    refused(
        Error.Code.PERMISSION,
        () -> submitWithId(BOB, "5f0c-retry"),
        "belongs to another user's job");
  }

  @Test
  void aPurgedJobFreesItsSubmissionId() {
    d.setServer(ROOT, attr("keep_completed", "10"));
    String first = submitWithId(ALICE, "once");
    d.schedule();
    d.started(first);
    d.obit(first, 0);
    d.advance(10);
    d.tick();
    assertTrue(d.state.job(first).isEmpty(), "purged");
    assertTrue(d.state.jobOfSubmission("once").isEmpty(), "and its submission id with it");
    assertFalse(submitWithId(ALICE, "once").equals(first), "the id may then name a new job");
  }

  @Test
  void unknownResourcesAreRefusedWithAHintForOtherSystemsSyntax() {
    refusedSubmit(
        Error.Code.UNKNOWN_RESOURCE,
        List.of(resource("select", "1:ncpus=4")),
        "unknown resource 'select'",
        "OpenPBS syntax",
        "nodes=N:ppn=M",
        "known resources:");
    refusedSubmit(
        Error.Code.UNKNOWN_RESOURCE,
        List.of(resource("ngpus", "1")),
        "unknown resource 'ngpus'",
        "-l nodes=N:gpus=G");
    refusedSubmit(
        Error.Code.UNKNOWN_RESOURCE, List.of(resource("walltim", "1:00")), "'walltim'", "walltime");
  }

  @Test
  void badValuesNameTheResource() {
    refusedSubmit(
        Error.Code.BAD_VALUE,
        List.of(resource("walltime", "one hour")),
        "illegal value for resource walltime=one hour");
    refusedSubmit(
        Error.Code.BAD_VALUE, List.of(resource("mem", "lots")), "illegal value for resource mem");
    refusedSubmit(
        Error.Code.BAD_VALUE, List.of(resource("ncpus", "0")), "ncpus must be at least 1");
    refusedSubmit(Error.Code.BAD_VALUE, List.of(resource("nodes", "2:ppn=")), "resource nodes");
  }

  @Test
  void aJobMayLowerItsPriorityButNotRaiseIt() {
    refusedSubmit(
        Error.Code.BAD_VALUE,
        List.of(resource("nice", "-5")),
        "illegal value for resource nice=-5",
        "0 to 19",
        "may lower its priority, not raise it");
    refusedSubmit(Error.Code.BAD_VALUE, List.of(resource("nice", "20")), "nice=20", "0 to 19");
    String id = d.submit(ALICE, resource("nice", "19"));
    assertEquals("19", d.state.job(id).orElseThrow().getResources().getValuesOrThrow("nice"));
  }

  @Test
  void nodesCannotBeCombinedWithNcpus() {
    refusedSubmit(
        Error.Code.BAD_VALUE,
        List.of(resource("nodes", "1:ppn=2"), resource("ncpus", "2")),
        "nodes cannot be combined with ncpus or procs");
  }

  @Test
  void resourcesMaxOfTheQueueAndTheServerAreEnforced() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        op("resources_max", "walltime", Attribute.Op.SET, "01:00:00"));
    refusedSubmit(
        Error.Code.EXCEEDS_QUEUE_LIMITS,
        List.of(resource("walltime", "2:00:00")),
        "Job exceeds queue resource limits: walltime=02:00:00 > resources_max.walltime=01:00:00");
    d.submit(ALICE, resource("walltime", "1:00:00"));

    d.setServer(ROOT, op("resources_max", "mem", Attribute.Op.SET, "4gb"));
    refusedSubmit(
        Error.Code.EXCEEDS_QUEUE_LIMITS,
        List.of(resource("mem", "8gb")),
        "Job exceeds server resource limits: mem=8gb > resources_max.mem=4gb");
  }

  @Test
  void queueDefaultsFillInWhatTheJobDidNotAsk() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        op("resources_default", "walltime", Attribute.Op.SET, "00:30:00"),
        op("resources_default", "ncpus", Attribute.Op.SET, "2"));
    Job given = d.job(d.submit(ALICE, resource("nodes", "1:ppn=3")));
    assertEquals(1800, given.getResources().getWalltime());
    assertFalse(
        given.getResources().containsValues("ncpus"), "ncpus default is not added to nodes=");
    Job defaulted = d.job(d.submit(ALICE));
    assertEquals(2, defaulted.getResources().getNcpus());
  }

  @Test
  void theLimitsHaveDefaultsAndBoundsAsWalltimeHas() {
    d.setServer(
        ROOT,
        op("resources_default", "pcput", Attribute.Op.SET, "00:01:00"),
        op("resources_default", "nice", Attribute.Op.SET, "10"),
        op("resources_max", "file", Attribute.Op.SET, "1gb"));
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        op("resources_min", "pvmem", Attribute.Op.SET, "100mb"));
    Job given = d.job(d.submit(ALICE, resource("pvmem", "1gb")));
    assertEquals(60, given.getResources().getPcput());
    assertEquals("10", given.getResources().getValuesOrThrow("nice"));
    refusedSubmit(
        Error.Code.EXCEEDS_QUEUE_LIMITS,
        List.of(resource("file", "2gb")),
        "Job exceeds server resource limits: file=2gb > resources_max.file=1gb");
    refusedSubmit(
        Error.Code.EXCEEDS_QUEUE_LIMITS,
        List.of(resource("pvmem", "10mb")),
        "pvmem=10mb < resources_min.pvmem=100mb");
  }

  @Test
  void aJobWithCgroupsIsRefusedWhereNoNodeMakesThem() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.SERVER,
        List.of(),
        op("cgroup_enable", Attribute.Op.SET, "True"));
    d.submit(ALICE); // both nodes make cgroups
    d.hello(Driver.node("n1", 4).toBuilder().setNoCgroups("berth runs as alice, not root").build());
    d.submit(ALICE); // n2 still does
    d.hello(Driver.node("n2", 4).toBuilder().setNoCgroups("started with --no-cgroups").build());
    refusedSubmit(
        Error.Code.RESOURCES_UNAVAILABLE,
        List.of(),
        "job can never run: it has cgroup_enable = True (the server's cgroup_enable) and no node"
            + " makes cgroups (n1: berth runs as alice, not root)");
    d.hello("n3", 4); // a node that makes them joins
    d.submit(ALICE);
  }

  @Test
  void requestsNoNodeCouldEverRunAreRefusedWithTheReason() {
    refusedSubmit(
        Error.Code.RESOURCES_UNAVAILABLE,
        List.of(resource("nodes", "3")),
        "job can never run: requests 3 nodes but the cluster has 2 nodes");
    refusedSubmit(
        Error.Code.RESOURCES_UNAVAILABLE,
        List.of(resource("nodes", "1:ppn=8")),
        "requests ppn=8 but the largest node in the cluster has np=4");
    refusedSubmit(
        Error.Code.RESOURCES_UNAVAILABLE,
        List.of(resource("nodes", "1:ppn=2:bigmem")),
        "no node with properties [bigmem]");
    refusedSubmit(
        Error.Code.RESOURCES_UNAVAILABLE,
        List.of(resource("nodes", "1:gpus=1")),
        "requests gpus=1 per node");
    refusedSubmit(
        Error.Code.RESOURCES_UNAVAILABLE, List.of(resource("ncpus", "5")), "ppn=5", "np=4");
    d.submit(ALICE, resource("nodes", "2:ppn=4"));
    d.submit(ALICE, resource("nodes", "n2:ppn=2"));
  }

  @Test
  void offlineAndDownNodesStillCountAsPlacesAJobCouldRun() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.NODE,
        List.of("n1", "n2"),
        attr("state", "offline"));
    String id = d.submit(ALICE, resource("nodes", "2:ppn=4"));
    assertEquals(JobState.QUEUED, d.job(id).getState());
    assertEquals(List.of(), d.schedule());
  }

  @Test
  void aClusterWithoutNodesRefusesJobs() {
    Driver empty = new Driver();
    empty.run(new Decider.Bootstrap(), "server");
    refused(
        Error.Code.RESOURCES_UNAVAILABLE, () -> empty.submit(ALICE), "the cluster has no nodes");
  }

  @Test
  void withoutAQueueAndWithoutADefaultQueueTheJobIsRefused() {
    d.qmgr(
        ROOT, Manage.Command.UNSET, Manage.ObjectType.SERVER, List.of(), attr("default_queue", ""));
    refusedSubmit(
        Error.Code.NO_DEFAULT_QUEUE,
        List.of(),
        "no queue given and the server has no default_queue",
        "set server default_queue");
    d.submit(ALICE, attr(AttributeNames.DESTINATION, "batch"));
    refusedSubmit(
        Error.Code.UNKNOWN_QUEUE,
        List.of(attr(AttributeNames.DESTINATION, "gpu")),
        "unknown queue 'gpu'");
  }

  @Test
  void aDisabledQueueRefusesJobs() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("enabled", "false"));
    refusedSubmit(Error.Code.QUEUE_DISABLED, List.of(), "queue batch is not enabled");
  }

  @Test
  void aclUsersLetInOnlyTheListedUsersAndManagers() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("acl_user_enable", "true"),
        attr("acl_users", "alice,carol"));
    d.submit(ALICE);
    refused(
        Error.Code.PERMISSION,
        () -> d.submit(BOB),
        "user bob is not in the acl_users of queue batch");
    d.setServer(ROOT, attr("managers", "bob@login1"));
    d.submit(BOB);
  }

  @Test
  void aDestinationOnAnotherServerIsRefused() {
    refusedSubmit(
        Error.Code.UNKNOWN_QUEUE,
        List.of(attr(AttributeNames.DESTINATION, "batch@otherserver")),
        "destination 'batch@otherserver': server 'otherserver' is not this server (srv)");
    d.submit(ALICE, attr(AttributeNames.DESTINATION, "batch@srv"));
    d.submit(ALICE, attr(AttributeNames.DESTINATION, "@srv"));
  }

  @Test
  void aSubmissionWithoutWorkingDirectoryIsRefused() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.client(ALICE, Driver.submitRequest(List.of())),
        "names no working directory (PBS_O_WORKDIR)");
  }

  @Test
  void onlyOperatorsMaySubmitWithOtherOrSystemHolds() {
    refusedSubmit(
        Error.Code.PERMISSION,
        List.of(attr(AttributeNames.HOLD_TYPES, "s")),
        "only operators and managers may set hold types o and s");
    Job held = d.job(d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u")));
    assertEquals(JobState.HELD, held.getState());
    assertEquals(Holds.newBuilder().setUser(true).build(), held.getHolds());
    d.setServer(ROOT, attr("operators", "bob@*"));
    assertEquals(
        JobState.HELD, d.job(d.submit(BOB, attr(AttributeNames.HOLD_TYPES, "o"))).getState());
  }

  @Test
  void aFutureExecutionTimeMakesTheJobWait() {
    String id =
        d.submit(ALICE, attr(AttributeNames.EXECUTION_TIME, Long.toString(d.nowSeconds() + 60)));
    assertEquals(JobState.WAITING, d.job(id).getState());
    assertTrue(d.state.eligible().isEmpty());
    String past =
        d.submit(ALICE, attr(AttributeNames.EXECUTION_TIME, Long.toString(d.nowSeconds() - 1)));
    assertEquals(JobState.QUEUED, d.job(past).getState());
  }

  @Test
  void dependenciesOnUnknownOrFailedJobsAreRefused() {
    refusedSubmit(
        Error.Code.BAD_DEPENDENCY,
        List.of(attr(AttributeNames.DEPEND, "afterok:99")),
        "job 99.srv in dependency afterok does not exist");
    refusedSubmit(
        Error.Code.BAD_DEPENDENCY,
        List.of(attr(AttributeNames.DEPEND, "before:1")),
        "dependency type 'before' is not supported");
    refusedSubmit(
        Error.Code.BAD_DEPENDENCY,
        List.of(attr(AttributeNames.DEPEND, "afterok")),
        "dependency 'afterok' names no job");
    String failed = d.submit(ALICE);
    d.runToEnd(failed, 1);
    refusedSubmit(
        Error.Code.BAD_DEPENDENCY,
        List.of(attr(AttributeNames.DEPEND, "afterok:" + failed)),
        "dependency afterok:" + failed + " can never be satisfied");
    String met = d.submit(ALICE, attr(AttributeNames.DEPEND, "afternotok:" + failed));
    assertEquals(JobState.QUEUED, d.job(met).getState());
  }

  @Test
  void aJobNamesAtMostMaxDependenciesJobs() {
    String first = d.submit(ALICE);
    String atTheLimit =
        d.submit(
            ALICE,
            attr(
                AttributeNames.DEPEND,
                "afterok" + (":" + first).repeat(Dependencies.MAX_DEPENDENCIES - 1) + ",after:1"));
    assertEquals(JobState.HELD, d.job(atTheLimit).getState());
    refusedSubmit(
        Error.Code.BAD_DEPENDENCY,
        List.of(
            attr(
                AttributeNames.DEPEND,
                "afterok" + (":" + first).repeat(Dependencies.MAX_DEPENDENCIES) + ",after:1")),
        "the dependencies name " + (Dependencies.MAX_DEPENDENCIES + 1) + " jobs",
        "a job may name at most " + Dependencies.MAX_DEPENDENCIES);
  }

  @Test
  void aPendingDependencyHoldsTheJobWithASystemHold() {
    String first = d.submit(ALICE);
    String second =
        d.submit(ALICE, attr(AttributeNames.DEPEND, "afterok:" + first.split("\\.")[0]));
    Job j = d.job(second);
    assertEquals(JobState.HELD, j.getState());
    assertTrue(j.getHolds().getSystem());
    assertFalse(j.getHolds().getUser());
    assertEquals(
        List.of(Dependency.newBuilder().setType("afterok").addJobIds(first).build()),
        j.getDependenciesList());
    assertFalse(j.containsExtensions(AttributeNames.DEPEND), "depend travels as dependencies");
  }

  /**
   * Slurm's singleton: the owner's jobs of the same name that have not ended, when the job comes,
   * hold it until they end (afterany); another user's, another name's and later ones do not.
   */
  @Test
  void singletonWaitsForTheOwnersUnendedJobsOfTheSameName() {
    String first = d.submit(ALICE, attr(AttributeNames.JOB_NAME, "train"));
    String second = d.submit(ALICE, attr(AttributeNames.JOB_NAME, "train"));
    d.submit(BOB, attr(AttributeNames.JOB_NAME, "train"));
    d.submit(ALICE, attr(AttributeNames.JOB_NAME, "eval"));
    Job j =
        d.job(
            d.submit(
                ALICE,
                attr(AttributeNames.JOB_NAME, "train"),
                attr(AttributeNames.DEPEND, "singleton")));
    assertEquals(JobState.HELD, j.getState());
    assertTrue(j.getHolds().getSystem());
    assertEquals(
        List.of(
            Dependency.newBuilder().setType("afterany").addJobIds(first).addJobIds(second).build()),
        j.getDependenciesList());
    Job alone =
        d.job(
            d.submit(
                ALICE,
                attr(AttributeNames.JOB_NAME, "fresh"),
                attr(AttributeNames.DEPEND, "singleton")));
    assertEquals(JobState.QUEUED, alone.getState(), "none of its name: nothing to wait for");
    assertEquals(List.of(), alone.getDependenciesList());
  }

  @Test
  void anArrayRequestMakesAnArrayOfSubjobs() {
    long number = d.state.nextJobNumber();
    String id = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-4%2"));
    assertEquals(number + "[].srv", id);
    Job parent = d.job(id);
    assertEquals(4, parent.getArraySize());
    assertEquals(2, parent.getArraySlotLimit());
    assertEquals(JobState.QUEUED, parent.getState());
    for (int i = 1; i <= 4; i++) {
      Job sub = d.job(number + "[" + i + "].srv");
      assertEquals(id, sub.getArrayParent());
      assertEquals("login1:/home/alice/STDIN.o" + number + "-" + i, sub.getOutputPath());
    }
    assertEquals(List.of(number + "[1].srv", number + "[2].srv"), d.schedule(), "slot limit 2");
  }

  @Test
  void anSbatchArrayGivesEachTaskAJobNumberOfItsOwnAsSlurmDoes() {
    long number = d.state.nextJobNumber();
    String id =
        d.submit(
            ALICE,
            attr(AttributeNames.JOB_ARRAY_REQUEST, "1-7:3,20%2"),
            attr(AttributeNames.JOB_NAME, "sweep"),
            attr(AttributeNames.SUBMIT_STYLE, AttributeNames.SBATCH));
    assertEquals(number + "[].srv", id);
    assertEquals(number + 4, d.state.nextJobNumber(), "the array took a number for each task");
    int[] indices = {1, 4, 7, 20};
    for (int k = 0; k < indices.length; k++) {
      Job task = d.job(number + "[" + indices[k] + "].srv");
      assertEquals(number + k, task.getTaskNumber());
      assertEquals("sweep", task.getName(), "Slurm's tasks keep their array's name");
    }
    List<String> variables =
        d.job(id).getVariablesList().stream().map(v -> v.getName() + "=" + v.getValue()).toList();
    assertTrue(
        variables.containsAll(
            List.of(
                "SLURM_ARRAY_TASK_COUNT=4",
                "SLURM_ARRAY_TASK_MIN=1",
                "SLURM_ARRAY_TASK_MAX=20",
                "SLURM_ARRAY_TASK_STEP=3")),
        variables.toString());
    String next = d.submit(ALICE);
    assertEquals((number + 4) + ".srv", next, "the next job comes after the tasks' numbers");

    // a task's own number names it; the array's number names no task but the array
    d.qdel(ALICE, Long.toString(number + 2));
    assertEquals(JobState.COMPLETED, d.job(number + "[7].srv").getState());
    assertEquals(JobState.QUEUED, d.job(number + "[4].srv").getState());
    Job after = d.job(d.submit(ALICE, attr(AttributeNames.DEPEND, "afterok:" + (number + 1))));
    assertEquals(number + "[4].srv", after.getDependencies(0).getJobIds(0));
    Job onArray = d.job(d.submit(ALICE, attr(AttributeNames.DEPEND, "afterok:" + number)));
    assertEquals(id, onArray.getDependencies(0).getJobIds(0), "the array's number: all of it");
    refusedSubmit(
        Error.Code.BAD_DEPENDENCY,
        List.of(attr(AttributeNames.DEPEND, "afterok:" + (number + 100))),
        "job " + (number + 100) + ".srv in dependency afterok does not exist");
  }

  @Test
  void qsubsArraysKeepOneNumberAndTorquesNames() {
    long number = d.state.nextJobNumber();
    d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3"));
    assertEquals(number + 1, d.state.nextJobNumber());
    Job task = d.job(number + "[2].srv");
    assertEquals(0, task.getTaskNumber());
    assertEquals("STDIN-2", task.getName());
    assertTrue(task.getVariablesList().stream().noneMatch(v -> v.getName().startsWith("SLURM")));
  }

  @Test
  void badArrayRequestsAndArraysOverMaxJobArraySizeAreRefused() {
    refusedSubmit(
        Error.Code.BAD_ARRAY_REQUEST,
        List.of(attr(AttributeNames.JOB_ARRAY_REQUEST, "5-1")),
        "Bad Job Array Request '5-1'",
        "runs backwards");
    refusedSubmit(
        Error.Code.BAD_ARRAY_REQUEST,
        List.of(attr(AttributeNames.JOB_ARRAY_REQUEST, "[0-8]")),
        "is not a non-negative number");
    refusedSubmit(
        Error.Code.BAD_ARRAY_REQUEST,
        List.of(attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3%0")),
        "slot limit");
    d.setServer(ROOT, attr("max_job_array_size", "4"));
    refusedSubmit(
        Error.Code.BAD_ARRAY_REQUEST,
        List.of(attr(AttributeNames.JOB_ARRAY_REQUEST, "0-4")),
        "more than max_job_array_size (4) subjobs");
    d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-3"));
  }

  @Test
  void interactiveJobsKeepQsubXsCommandAndAreNeverArrays() {
    Job shell = d.job(d.submit(ALICE, attr(AttributeNames.INTERACTIVE, "True")));
    assertTrue(shell.hasInteractive());
    assertEquals("", shell.getInteractive().getCommand());
    assertFalse(shell.getRerunnable(), "a rerun would wait for a qsub that is gone");
    Job command =
        d.job(
            d.submit(
                ALICE,
                attr(AttributeNames.INTERACTIVE, "true"),
                attr(AttributeNames.INTER_CMD, "make test")));
    assertEquals("make test", command.getInteractive().getCommand());
    assertFalse(d.job(d.submit(ALICE, attr(AttributeNames.INTERACTIVE, "False"))).hasInteractive());
    refusedSubmit(
        Error.Code.BAD_VALUE,
        List.of(attr(AttributeNames.INTER_CMD, "make")),
        "inter_cmd is for interactive jobs only (qsub -x needs -I)");
    refusedSubmit(
        Error.Code.BAD_VALUE,
        List.of(
            attr(AttributeNames.INTERACTIVE, "True"),
            attr(AttributeNames.JOB_ARRAY_REQUEST, "0-3")),
        "an interactive job cannot be a job array");
    refusedSubmit(
        Error.Code.BAD_VALUE,
        List.of(attr(AttributeNames.INTERACTIVE, "True"), attr(AttributeNames.INTER_CMD, " ")),
        "inter_cmd is empty");
  }

  @Test
  void unknownAndUnsupportedAttributesAreRefused() {
    refusedSubmit(
        Error.Code.UNKNOWN_ATTRIBUTE,
        List.of(attr("Frobnicate", "yes")),
        "undefined job attribute 'Frobnicate'");
    refusedSubmit(
        Error.Code.BAD_VALUE, List.of(attr(AttributeNames.PRIORITY, "2000")), "illegal Priority");
  }
}

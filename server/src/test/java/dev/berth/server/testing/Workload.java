package dev.berth.server.testing;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.Driver.resource;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.CreateReservation;
import dev.berth.proto.DeleteReservation;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Reservation;
import dev.berth.proto.RunJobRejected;
import dev.berth.proto.ServerInbound;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Decider;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * A seeded mix of what a real server sees: plain, array, held, delayed and dependent submissions,
 * FIFO scheduling cycles, moms reporting starts and obits (some twice, some from the wrong node),
 * restarts and lost nodes, qdel, qhold, qrls, qalter, qmgr (preemptor queues, preemption by requeue
 * and by suspending) and housekeeping ticks. Commands the decider refuses are part of the mix;
 * anything else that throws is a bug and propagates.
 */
public final class Workload {
  private static final Caller[] USERS = {ALICE, BOB, ROOT};

  private final Random random;
  public final Driver driver = new Driver();

  /** The state after each command, index = number of events applied. */
  public final List<ClusterState> states = new ArrayList<>();

  public int refused;

  public Workload(long seed) {
    random = new Random(seed);
    states.add(ClusterState.EMPTY);
  }

  /** Runs commands until at least {@code events} events are in the journal. */
  public Workload runUntil(int events) {
    step(() -> driver.run(new Decider.Bootstrap(), "server"));
    for (String n : List.of("n1", "n2", "n3")) {
      step(() -> driver.hello(Driver.node(n, 4, n.equals("n3") ? "fast" : "slow")));
    }
    step(() -> driver.preemption("suspend"));
    while (driver.journal.size() < events) {
      step(this::oneCommand);
    }
    return this;
  }

  private void step(Runnable command) {
    try {
      command.run();
    } catch (CommandException e) {
      refused++;
    }
    while (states.size() <= driver.journal.size()) {
      states.add(null);
    }
    states.set(driver.journal.size(), driver.state);
  }

  private void oneCommand() {
    int roll = random.nextInt(100);
    Caller user = USERS[random.nextInt(USERS.length)];
    if (roll < 18) {
      submitPlain(user);
    } else if (roll < 24) {
      Attribute array = arrayRequest();
      // sbatch's arrays (each task a job number of its own) among them, without a draw of their
      // own, so that every seed's run stays as it was
      List<Attribute> a = new ArrayList<>(List.of(array, resource("walltime", "00:10:00")));
      if (array.getValue().contains("%")) {
        a.add(attr(AttributeNames.SUBMIT_STYLE, AttributeNames.SBATCH));
      }
      driver.submitWithId(user, submissionId(), a.toArray(Attribute[]::new));
    } else if (roll < 30) {
      submitDependent(user);
    } else if (roll < 42) {
      driver.schedule();
    } else if (roll < 52) {
      pick(JobState.RUNNING)
          .ifPresent(
              j -> {
                if (j.getSuspendedAt() > 0 && !j.getSuspendConfirmed()) {
                  driver.run(new Decider.SuspendConfirmed(j.getId()), "server"); // nodes froze it
                } else {
                  driver.started(startNode(j), j.getId());
                }
              });
    } else if (roll < 62) {
      pick(JobState.RUNNING)
          .ifPresent(j -> driver.obit(obitNode(j), j.getId(), random.nextInt(4) - 1));
    } else if (roll < 67) {
      anyJob().ifPresent(j -> driver.qdel(user, j.getId()));
    } else if (roll < 69) {
      anyJob().ifPresent(j -> driver.qdelPurge(user, j.getId()));
    } else if (roll < 74) {
      anyJob().ifPresent(j -> driver.qhold(user, j.getId(), random.nextBoolean() ? "u" : "uo"));
    } else if (roll < 79) {
      anyJob().ifPresent(j -> driver.qrls(user, j.getId(), random.nextBoolean() ? "u" : "o"));
    } else if (roll < 82) {
      anyJob()
          .ifPresent(
              j ->
                  driver.qalter(
                      user,
                      j.getId(),
                      attr(AttributeNames.PRIORITY, Integer.toString(random.nextInt(21) - 10))));
    } else if (roll < 86) {
      qmgr(user);
    } else if (roll < 93) {
      driver.advance(random.nextInt(200));
      driver.tick();
    } else if (roll < 94) {
      restartMom();
    } else if (roll < 97) {
      reservation(user);
    } else if (roll < 98) {
      driver.run(new Decider.NodeDown("n" + (1 + random.nextInt(3))), "server");
      driver.hello(Driver.node("n" + (1 + random.nextInt(3)), 4));
    } else {
      pick(JobState.RUNNING)
          .filter(j -> j.getStartTime() == 0)
          .ifPresent(
              j ->
                  driver.fromNode(
                      driver.motherSuperior(j.getId()),
                      ServerInbound.newBuilder()
                          .setRunRejected(
                              RunJobRejected.newBuilder()
                                  .setNode(driver.motherSuperior(j.getId()))
                                  .setJobId(j.getId())
                                  .setReason("no such user"))));
    }
  }

  private void submitPlain(Caller user) {
    List<Attribute> a = new ArrayList<>();
    a.add(resource("nodes", (1 + random.nextInt(2)) + ":ppn=" + (1 + random.nextInt(4))));
    if (random.nextInt(5) == 0) {
      a.add(attr(AttributeNames.HOLD_TYPES, "u"));
    }
    if (random.nextInt(6) == 0) {
      a.add(
          attr(
              AttributeNames.EXECUTION_TIME,
              Long.toString(driver.nowSeconds() + random.nextInt(300))));
    }
    if (random.nextInt(4) == 0) {
      a.add(attr(AttributeNames.PRIORITY, Integer.toString(random.nextInt(100))));
    }
    if (random.nextInt(5) == 0) {
      a.add(attr(AttributeNames.RERUNABLE, "n"));
    }
    if (random.nextInt(6) == 0) {
      a.add(resource("nodes", "1:ppn=2:fast"));
    }
    if (random.nextInt(3) == 0) {
      a.add(attr(AttributeNames.DESTINATION, "express"));
    }
    if (random.nextBoolean()) {
      driver.submitWithId(user, submissionId(), a.toArray(Attribute[]::new));
    } else {
      driver.submit(user, a.toArray(Attribute[]::new));
    }
  }

  /**
   * A new submission id, or now and then one used before (a qsub retrying after a lost reply; the
   * decider answers with the earlier job, or refuses another user's id).
   */
  private String submissionId() {
    if (submissionIds > 0 && random.nextInt(8) == 0) {
      return "sub-" + random.nextInt(submissionIds);
    }
    return "sub-" + submissionIds++;
  }

  private int submissionIds;

  private Attribute arrayRequest() {
    return attr(
        AttributeNames.JOB_ARRAY_REQUEST,
        random.nextBoolean() ? "0-" + random.nextInt(5) : "1-6%" + (1 + random.nextInt(3)));
  }

  private void submitDependent(Caller user) {
    anyJob()
        .ifPresent(
            target -> {
              String type =
                  List.of("afterok", "afternotok", "afterany", "after").get(random.nextInt(4));
              List<Attribute> a = new ArrayList<>();
              a.add(attr(AttributeNames.DEPEND, type + ":" + target.getId()));
              if (random.nextInt(3) == 0) {
                a.add(arrayRequest());
              }
              driver.submit(user, a.toArray(Attribute[]::new));
            });
  }

  private void qmgr(Caller user) {
    switch (random.nextInt(6)) {
      case 0 ->
          driver.setServer(
              user, attr("keep_completed", Integer.toString(50 + random.nextInt(400))));
      case 1 -> driver.setServer(user, attr("query_other_jobs", random.nextBoolean() + ""));
      case 2 ->
          driver.qmgr(
              user,
              Manage.Command.SET,
              Manage.ObjectType.NODE,
              List.of("n" + (1 + random.nextInt(3))),
              op("state", random.nextBoolean() ? Attribute.Op.INCR : Attribute.Op.DECR, "offline"));
      case 3 ->
          driver.qmgr(
              user,
              Manage.Command.CREATE,
              Manage.ObjectType.QUEUE,
              List.of("q" + random.nextInt(3)),
              attr("enabled", "True"),
              attr("started", "True"),
              attr("keep_completed", "20"));
      case 4 ->
          driver.qmgr(
              user,
              Manage.Command.SET,
              Manage.ObjectType.QUEUE,
              List.of("batch"),
              attr("preempt_mode", random.nextInt(3) == 0 ? "requeue" : "suspend"));
      default ->
          driver.qmgr(
              user,
              Manage.Command.SET,
              Manage.ObjectType.SERVER,
              List.of(),
              op("managers", Attribute.Op.INCR, "bob@*"));
    }
  }

  /** pbs_rsub (operators only), a job for a reservation, or pbs_rdel. */
  private void reservation(Caller user) {
    List<Reservation> live =
        driver.state.reservations().values().stream()
            .filter(r -> r.getState() != Reservation.State.FINISHED)
            .toList();
    int what = live.isEmpty() ? 0 : random.nextInt(4);
    if (what == 0) {
      driver.client(
          random.nextBoolean() ? ROOT : user,
          Request.newBuilder()
              .setCreateReservation(
                  CreateReservation.newBuilder()
                      .setStart(driver.nowSeconds() + random.nextInt(300))
                      .setDuration(60 + random.nextInt(600))
                      .setNodes(random.nextBoolean() ? "1" : "n" + (1 + random.nextInt(3)))
                      .addUsers("alice")
                      .addUsers("bob")));
      return;
    }
    Reservation r = live.get(random.nextInt(live.size()));
    if (what == 3) {
      driver.client(
          user,
          Request.newBuilder()
              .setDeleteReservation(DeleteReservation.newBuilder().setId(r.getQueue())));
    } else {
      driver.submit(
          user,
          attr(AttributeNames.DESTINATION, r.getQueue()),
          resource("nodes", "1:ppn=" + (1 + random.nextInt(4))),
          resource("walltime", "00:01:00"));
    }
  }

  /** A mom comes back remembering only some of the jobs it ran. */
  private void restartMom() {
    String node = "n" + (1 + random.nextInt(3));
    List<String> kept =
        driver.state.jobs().stream()
            .filter(j -> j.getState() == JobState.RUNNING && j.getExecNodesCount() > 0)
            .filter(j -> j.getExecNodes(0).getNode().equals(node))
            .filter(j -> random.nextBoolean())
            .map(Job::getId)
            .sorted()
            .toList();
    driver.hello(Driver.node(node, 4), kept.toArray(String[]::new));
  }

  private String startNode(Job j) {
    return random.nextInt(8) == 0 ? "n" + (1 + random.nextInt(3)) : j.getExecNodes(0).getNode();
  }

  private String obitNode(Job j) {
    return random.nextInt(8) == 0 ? "n" + (1 + random.nextInt(3)) : j.getExecNodes(0).getNode();
  }

  private java.util.Optional<Job> pick(JobState state) {
    List<Job> jobs =
        sorted().stream()
            .filter(j -> j.getState() == state && j.getArrayRequest().isEmpty())
            .toList();
    return jobs.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(jobs.get(random.nextInt(jobs.size())));
  }

  private java.util.Optional<Job> anyJob() {
    List<Job> jobs = sorted();
    return jobs.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(jobs.get(random.nextInt(jobs.size())));
  }

  /** Jobs in id order, so that a seed always picks the same ones. */
  private List<Job> sorted() {
    List<Job> jobs = new ArrayList<>(driver.state.jobs());
    jobs.sort(Comparator.comparing(Job::getId));
    return jobs;
  }
}

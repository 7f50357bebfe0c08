package dev.berth.server.state;

import dev.berth.core.ArrayRequest;
import dev.berth.core.JobDeltas;
import dev.berth.core.JobIds;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.Suspensions;
import dev.berth.core.pbs.JobTransition;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Queue;
import dev.berth.proto.SubjobAltered;
import java.util.List;

/**
 * {@code apply(state, event)}: the only way cluster state changes. Pure and deterministic: every
 * time and id it needs travels inside the event. The job state machine it enforces is written down
 * in docs/job-states.md; an event the current state does not allow throws {@link
 * IllegalTransitionException} naming the event and the job.
 */
public final class StateMachine {
  private StateMachine() {}

  /** Applies the next event of the journal; its sequence number must follow the state's. */
  public static ClusterState apply(ClusterState state, Event event) {
    if (event.getSeq() != state.lastSeq + 1) {
      throw new IllegalTransitionException(
          "event " + event.getSeq() + " does not follow event " + state.lastSeq);
    }
    return applyBody(state, event).withSeq(event.getSeq()).build();
  }

  /**
   * Applies a snapshot image (events without their own sequence numbers), then sets seq. The image
   * is taken one event at a time: one read from disk as it is iterated is never held whole.
   */
  public static ClusterState restore(ClusterState state, Iterable<Event> image, long seq) {
    ClusterState s = state;
    for (Event e : image) {
      s = applyBody(s, e).build();
    }
    return new StateBuilder(s).withSeq(seq).build();
  }

  private static StateBuilder applyBody(ClusterState state, Event e) {
    StateBuilder b = new StateBuilder(state);
    long now = e.getTime() / 1000;
    try {
      switch (e.getBodyCase()) {
        case JOB_SUBMITTED -> Jobs.submitted(b, e.getJobSubmitted().getJob(), e);
        case JOB_RESTORED ->
            Jobs.restored(b, e.getJobRestored().getJob(), e.getJobRestored().getScript());
        case SUBJOB_RESTORED -> Jobs.subjobRestored(b, e.getSubjobRestored());
        case USAGE_RESTORED -> UsageCharges.restored(b, e.getUsageRestored());
        case JOB_HELD -> held(b, e.getJobHeld().getJobId(), e.getJobHeld().getHolds(), now);
        case JOB_RELEASED ->
            released(b, e.getJobReleased().getJobId(), e.getJobReleased().getHolds(), now);
        case JOB_ALTERED -> altered(b, e.getJobAltered().getJob(), now);
        case SUBJOB_ALTERED -> subjobAltered(b, e.getSubjobAltered(), now);
        case JOB_DISPATCHED ->
            dispatched(
                b, e.getJobDispatched().getJobId(), e.getJobDispatched().getExecNodesList(), now);
        case JOB_STARTED -> started(b, e);
        case JOB_EXITED -> exited(b, e);
        case JOB_DELETED -> deleted(b, e, now);
        case JOB_KILL_REQUESTED -> killRequested(b, e, now);
        case JOB_REQUEUED -> requeued(b, e, now);
        case JOB_SUSPENDED -> suspended(b, e, now);
        case JOB_SUSPEND_CONFIRMED ->
            suspendConfirmed(b, e.getJobSuspendConfirmed().getJobId(), now);
        case JOB_RESUMED -> resumed(b, e.getJobResumed().getJobId(), now);
        case JOB_PURGED -> Jobs.purged(b, e.getJobPurged().getJobId());
        case SERVER_ATTRIBUTES_CHANGED ->
            serverChanged(b, e.getServerAttributesChanged().getChangesList());
        case QUEUE_CREATED -> queueCreated(b, e.getQueueCreated().getQueue());
        case QUEUE_ATTRIBUTES_CHANGED -> queueChanged(b, e);
        case QUEUE_DELETED -> queueDeleted(b, e.getQueueDeleted().getQueue());
        case NODE_CREATED -> nodeCreated(b, e.getNodeCreated().getNode());
        case NODE_UPDATED -> nodeUpdated(b, e.getNodeUpdated().getNode());
        case NODE_DELETED -> nodeDeleted(b, e.getNodeDeleted().getNode());
        case RESERVATION_CREATED ->
            Reservations.created(b, e.getReservationCreated().getReservation());
        case RESERVATION_BEGAN -> Reservations.began(b, e.getReservationBegan().getId());
        case RESERVATION_ENDED ->
            Reservations.ended(
                b, e.getReservationEnded().getId(), e.getReservationEnded().getReason());
        case RESERVATION_REMOVED -> Reservations.removed(b, e.getReservationRemoved().getId());
        case BODY_NOT_SET ->
            throw new IllegalTransitionException(
                "event of an unknown kind (written by a newer Berth?); refusing to skip it");
      }
    } catch (IllegalTransitionException ex) {
      throw new IllegalTransitionException(
          "event " + e.getSeq() + " (" + e.getBodyCase() + "): " + ex.getMessage());
    }
    return b;
  }

  private static void held(StateBuilder b, String id, Holds holds, long now) {
    Job job = b.require(id);
    require(job, JobTransition.JOB_HELD);
    Holds merged =
        Holds.newBuilder()
            .setUser(job.getHolds().getUser() || holds.getUser())
            .setOther(job.getHolds().getOther() || holds.getOther())
            .setSystem(job.getHolds().getSystem() || holds.getSystem())
            .build();
    replace(
        b,
        JobTransition.JOB_HELD,
        job,
        job.toBuilder().setHolds(merged).setState(JobState.HELD).setMtime(now).build());
  }

  private static void released(StateBuilder b, String id, Holds holds, long now) {
    Job job = b.require(id);
    require(job, JobTransition.JOB_RELEASED);
    Holds left =
        Holds.newBuilder()
            .setUser(job.getHolds().getUser() && !holds.getUser())
            .setOther(job.getHolds().getOther() && !holds.getOther())
            .setSystem(job.getHolds().getSystem() && !holds.getSystem())
            .build();
    boolean stillHeld = left.getUser() || left.getOther() || left.getSystem();
    JobState next =
        stillHeld
            ? JobState.HELD
            : job.getExecutionTime() > now ? JobState.WAITING : JobState.QUEUED;
    replace(
        b,
        JobTransition.JOB_RELEASED,
        job,
        job.toBuilder().setHolds(left).setState(next).setMtime(now).build());
  }

  /** A job with new attribute values; a subjob keeps sharing what it shares with its parent. */
  private static void altered(StateBuilder b, Job altered, long now) {
    Job job = b.require(altered.getId());
    replaceAltered(
        b,
        JobTransition.JOB_ALTERED,
        job,
        job.getArrayParent().isEmpty() ? altered : Jobs.shared(job, altered),
        now);
  }

  private static void subjobAltered(StateBuilder b, SubjobAltered a, long now) {
    Job job = b.require(a.getJobId());
    if (job.getArrayParent().isEmpty()) {
      throw new IllegalTransitionException("job " + job.getId() + " is not an array's subjob");
    }
    replaceAltered(b, JobTransition.SUBJOB_ALTERED, job, JobDeltas.apply(job, a.getChanges()), now);
  }

  private static void replaceAltered(
      StateBuilder b, JobTransition t, Job job, Job altered, long now) {
    require(job, t);
    if (!job.getId().equals(altered.getId())) {
      throw new IllegalTransitionException("alter of " + job.getId() + " may not change its id");
    }
    replace(b, t, job, altered.toBuilder().setMtime(now).build());
  }

  private static void dispatched(
      StateBuilder b, String id, List<NodeAllocation> allocations, long now) {
    Job job = b.require(id);
    require(job, JobTransition.JOB_DISPATCHED);
    for (NodeAllocation a : allocations) {
      b.hold(a, id);
    }
    replace(
        b,
        JobTransition.JOB_DISPATCHED,
        job,
        job.toBuilder()
            .setState(JobState.RUNNING)
            .clearExecNodes()
            .addAllExecNodes(allocations)
            .clearComment()
            .setMtime(now)
            .build());
  }

  private static void started(StateBuilder b, Event e) {
    var s = e.getJobStarted();
    Job job = b.require(s.getJobId());
    require(job, JobTransition.JOB_STARTED);
    replace(
        b,
        JobTransition.JOB_STARTED,
        job,
        job.toBuilder()
            .setSessionId(s.getSessionId())
            .setStartTime(s.getStartTime())
            .setRunCount(job.getRunCount() + 1)
            .setFailedStarts(0)
            .setMtime(e.getTime() / 1000)
            .build());
  }

  private static void exited(StateBuilder b, Event e) {
    var x = e.getJobExited();
    Job job = b.require(x.getJobId());
    require(job, JobTransition.JOB_EXITED);
    UsageCharges.charge(b, job, x.getEndTime(), e.getTime());
    b.release(job);
    Job.Builder done =
        job.toBuilder()
            .setState(JobState.COMPLETED)
            .setExitStatus(x.getExitStatus())
            .setResourcesUsed(x.getResourcesUsed())
            .setCompTime(x.getEndTime())
            .clearPreemptedBy()
            .setSuspendedSeconds(Suspensions.suspendedSeconds(job, x.getEndTime()))
            .clearSuspendedAt()
            .clearSuspendedFor()
            .clearSuspendConfirmed()
            .setExitReason(x.getReason())
            .setMtime(e.getTime() / 1000);
    String comment =
        x.getOutputNote().isEmpty()
            ? x.getReason()
            : x.getReason().isEmpty()
                ? x.getOutputNote()
                : x.getReason() + "; " + x.getOutputNote();
    if (!comment.isEmpty()) {
      done.setComment(comment);
    }
    replace(b, JobTransition.JOB_EXITED, job, done.build());
  }

  private static void deleted(StateBuilder b, Event e, long now) {
    var d = e.getJobDeleted();
    Job job = b.require(d.getJobId());
    require(job, JobTransition.JOB_DELETED);
    replace(
        b,
        JobTransition.JOB_DELETED,
        job,
        job.toBuilder()
            .setState(JobState.COMPLETED)
            .setCompTime(now)
            .setComment(d.getReason())
            .setExitReason(d.getReason())
            .setMtime(now)
            .build());
  }

  private static void killRequested(StateBuilder b, Event e, long now) {
    var k = e.getJobKillRequested();
    Job job = b.require(k.getJobId());
    require(job, JobTransition.JOB_KILL_REQUESTED);
    replace(
        b,
        JobTransition.JOB_KILL_REQUESTED,
        job,
        job.toBuilder()
            .setDeleteRequestedBy(e.getActor())
            .setPreemptedBy(k.getPreemptedBy())
            .setRerunRequestedBy(k.getRerun() ? e.getActor() : "")
            .setComment(k.getReason())
            .setMtime(now)
            .build());
  }

  private static void requeued(StateBuilder b, Event e, long now) {
    var r = e.getJobRequeued();
    Job job = b.require(r.getJobId());
    require(job, JobTransition.JOB_REQUEUED);
    UsageCharges.charge(b, job, now, e.getTime());
    b.release(job);
    replace(
        b,
        JobTransition.JOB_REQUEUED,
        job,
        job.toBuilder()
            .setState(JobState.QUEUED)
            .clearExecNodes()
            .setSessionId(0)
            .setStartTime(0)
            .clearDeleteRequestedBy()
            .clearPreemptedBy()
            .clearRerunRequestedBy()
            .clearSuspendedAt()
            .clearSuspendedFor()
            .clearSuspendedSeconds()
            .clearSuspensions()
            .clearSuspendConfirmed()
            .setFailedStarts(r.getFailedStart() ? job.getFailedStarts() + 1 : job.getFailedStarts())
            .setComment(r.getReason())
            .setEtime(now)
            .setMtime(now)
            .build());
  }

  /**
   * A started running job is to be frozen for a preemptor's job; it keeps what it holds until its
   * nodes confirm. One being killed is not suspended (its end is what frees its CPUs), nor one that
   * runs on another suspended job's CPUs (a CPU is lent by one job at a time).
   */
  private static void suspended(StateBuilder b, Event e, long now) {
    var x = e.getJobSuspended();
    Job job = b.require(x.getJobId());
    require(job, JobTransition.JOB_SUSPENDED);
    if (job.getSuspendedAt() > 0) {
      throw new IllegalTransitionException("job " + job.getId() + " is already suspended");
    }
    if (job.getStartTime() == 0 || !job.getDeleteRequestedBy().isEmpty()) {
      throw new IllegalTransitionException(
          "job " + job.getId() + " cannot be suspended before it starts or while it is killed");
    }
    b.requireNotOnLentCpus(job);
    replace(
        b,
        JobTransition.JOB_SUSPENDED,
        job,
        job.toBuilder()
            .setSuspendedAt(now)
            .setSuspendedFor(x.getSuspendedFor())
            .setSuspensions(job.getSuspensions() + 1)
            .setComment(x.getReason())
            .setMtime(now)
            .build());
  }

  /** Every node froze the suspended job: it lends its CPUs and keeps the rest. */
  private static void suspendConfirmed(StateBuilder b, String id, long now) {
    Job job = b.require(id);
    require(job, JobTransition.JOB_SUSPEND_CONFIRMED);
    if (job.getSuspendedAt() == 0 || job.getSuspendConfirmed()) {
      throw new IllegalTransitionException(
          "job " + id + " has no suspension waiting to be confirmed");
    }
    b.lendCpus(job);
    replace(
        b,
        JobTransition.JOB_SUSPEND_CONFIRMED,
        job,
        job.toBuilder().setSuspendConfirmed(true).setMtime(now).build());
  }

  private static void resumed(StateBuilder b, String id, long now) {
    Job job = b.require(id);
    require(job, JobTransition.JOB_RESUMED);
    if (job.getSuspendedAt() == 0) {
      throw new IllegalTransitionException("job " + id + " is not suspended");
    }
    if (job.getSuspendConfirmed()) {
      b.takeBackCpus(job);
    }
    replace(
        b,
        JobTransition.JOB_RESUMED,
        job,
        job.toBuilder()
            .setSuspendedSeconds(Suspensions.suspendedSeconds(job, now))
            .clearSuspendedAt()
            .clearSuspendedFor()
            .clearSuspendConfirmed()
            .clearComment()
            .setMtime(now)
            .build());
  }

  private static void queueCreated(StateBuilder b, Queue queue) {
    if (b.queues.containsKey(queue.getName())) {
      throw new IllegalTransitionException("queue " + queue.getName() + " already exists");
    }
    b.queues = b.queues.plus(queue.getName(), queue);
  }

  private static void queueChanged(StateBuilder b, Event e) {
    var c = e.getQueueAttributesChanged();
    Queue queue = b.queues.get(c.getQueue());
    if (queue == null) {
      throw new IllegalTransitionException("no queue " + c.getQueue());
    }
    var attributes = new java.util.TreeMap<>(queue.getAttributesMap());
    for (AttributeValue v : c.getChangesList()) {
      if (v.getUnset()) {
        attributes.remove(v.getName());
      } else {
        attributes.put(v.getName(), v.getValue());
      }
    }
    b.queues =
        b.queues.plus(
            c.getQueue(), queue.toBuilder().clearAttributes().putAllAttributes(attributes).build());
  }

  private static void queueDeleted(StateBuilder b, String name) {
    if (!b.queues.containsKey(name)) {
      throw new IllegalTransitionException("no queue " + name);
    }
    Reservations.requireNoReservation(b, name);
    b.queues = b.queues.minus(name);
  }

  private static void nodeCreated(StateBuilder b, Node node) {
    if (b.nodes.containsKey(node.getName())) {
      throw new IllegalTransitionException("node " + node.getName() + " already exists");
    }
    b.nodes = b.nodes.plus(node.getName(), node);
  }

  private static void nodeUpdated(StateBuilder b, Node node) {
    if (!b.nodes.containsKey(node.getName())) {
      throw new IllegalTransitionException("no node " + node.getName());
    }
    b.nodes = b.nodes.plus(node.getName(), node);
  }

  private static void nodeDeleted(StateBuilder b, String name) {
    if (!b.nodes.containsKey(name)) {
      throw new IllegalTransitionException("no node " + name);
    }
    if (!b.usage.getOrDefault(name, NodeUsage.NONE).idle()) {
      throw new IllegalTransitionException("node " + name + " still runs jobs");
    }
    b.nodes = b.nodes.minus(name);
    b.usage = b.usage.minus(name);
  }

  /**
   * Server attributes are kept as text, except next_job_number, which is the job id counter itself
   * (so it survives when the jobs that advanced it are purged).
   */
  private static void serverChanged(StateBuilder b, List<AttributeValue> changes) {
    for (AttributeValue v : changes) {
      if (v.getName().equals(ServerAttributeNames.NEXT_JOB_NUMBER)) {
        b.nextJobNumber = Long.parseLong(v.getValue());
      } else if (v.getUnset()) {
        b.server = b.server.minus(v.getName());
      } else {
        b.server = b.server.plus(v.getName(), v.getValue());
      }
    }
  }

  /** The job's state allows {@code t} (docs/job-states.md). */
  static void require(Job job, JobTransition t) {
    if (!t.from().contains(job.getState())) {
      throw new IllegalTransitionException(
          "cannot " + t.verb() + " job " + job.getId() + " in state " + job.getState());
    }
  }

  /** {@code job} becomes {@code next} by {@code t}, which must allow the state it leaves it in. */
  private static void replace(StateBuilder b, JobTransition t, Job job, Job next) {
    if (!t.to(job.getState()).contains(next.getState())) {
      throw new IllegalTransitionException(
          t.event()
              + " may not take job "
              + job.getId()
              + " from "
              + job.getState()
              + " to "
              + next.getState());
    }
    b.replace(job, next);
  }

  /** The subjob ids of an array job, in index order. */
  static List<String> subjobIds(Job parent) {
    long number = parent.getNumber();
    String server = JobIds.server(parent.getId());
    return ArrayRequest.parse(parent.getArrayRequest(), Integer.MAX_VALUE).indices().stream()
        .map(i -> JobIds.subjobOf(number, i, server))
        .toList();
  }
}

package dev.berth.server.testing;

import com.google.protobuf.ByteString;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobAltered;
import dev.berth.proto.JobDeleted;
import dev.berth.proto.JobDispatched;
import dev.berth.proto.JobExited;
import dev.berth.proto.JobHeld;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.JobPurged;
import dev.berth.proto.JobReleased;
import dev.berth.proto.JobRequeued;
import dev.berth.proto.JobStarted;
import dev.berth.proto.JobState;
import dev.berth.proto.JobSubmitted;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.NodeDeleted;
import dev.berth.proto.NodeUpdated;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueAttributesChanged;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.QueueDeleted;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.ServerAttributesChanged;
import java.util.Arrays;
import java.util.stream.IntStream;

/** Event bodies for state machine tables, written as compactly as the tables need them. */
public final class Events {
  public static final String SERVER = "srv";

  private Events() {}

  /** A queued plain job {@code N.srv} in queue batch, owned by alice. */
  public static Job job(long number) {
    return Job.newBuilder()
        .setId(number + "." + SERVER)
        .setNumber(number)
        .setName("STDIN")
        .setOwner("alice@login1")
        .setEuser("alice")
        .setQueue("batch")
        .setServer(SERVER)
        .setState(JobState.QUEUED)
        .setOutputPath("login1:/home/alice/STDIN.o" + number)
        .setErrorPath("login1:/home/alice/STDIN.e" + number)
        .setRerunnable(true)
        .build();
  }

  /** A queued array job {@code N[].srv} with the given -t request and number of subjobs. */
  public static Job array(long number, String request, int size) {
    return job(number).toBuilder()
        .setId(number + "[]." + SERVER)
        .setArrayRequest(request)
        .setArraySize(size)
        .build();
  }

  public static Event.Builder submitted(Job job) {
    return Event.newBuilder()
        .setJobSubmitted(
            JobSubmitted.newBuilder()
                .setJob(job)
                .setScript(ByteString.copyFromUtf8("#!/bin/sh\necho " + job.getId() + "\n")));
  }

  public static Holds holds(String types) {
    return Holds.newBuilder()
        .setUser(types.contains("u"))
        .setOther(types.contains("o"))
        .setSystem(types.contains("s"))
        .build();
  }

  public static Event.Builder held(String id, String types) {
    return Event.newBuilder().setJobHeld(JobHeld.newBuilder().setJobId(id).setHolds(holds(types)));
  }

  public static Event.Builder released(String id, String types) {
    return Event.newBuilder()
        .setJobReleased(JobReleased.newBuilder().setJobId(id).setHolds(holds(types)));
  }

  public static Event.Builder altered(Job job, String... changed) {
    return Event.newBuilder()
        .setJobAltered(JobAltered.newBuilder().setJob(job).addAllChanged(Arrays.asList(changed)));
  }

  public static NodeAllocation alloc(String node, Integer... cpus) {
    return NodeAllocation.newBuilder().setNode(node).addAllCpus(Arrays.asList(cpus)).build();
  }

  public static Event.Builder dispatched(String id, NodeAllocation... allocations) {
    return Event.newBuilder()
        .setJobDispatched(
            JobDispatched.newBuilder().setJobId(id).addAllExecNodes(Arrays.asList(allocations)));
  }

  public static Event.Builder started(String id, long session, long startTime) {
    return Event.newBuilder()
        .setJobStarted(
            JobStarted.newBuilder().setJobId(id).setSessionId(session).setStartTime(startTime));
  }

  public static Event.Builder exited(String id, int status, long endTime) {
    return Event.newBuilder()
        .setJobExited(
            JobExited.newBuilder()
                .setJobId(id)
                .setExitStatus(status)
                .setEndTime(endTime)
                .setResourcesUsed(ResourcesUsed.newBuilder().setCput(7).setWalltime(9)));
  }

  public static Event.Builder exited(String id, int status, long endTime, String reason) {
    Event.Builder e = exited(id, status, endTime);
    e.getJobExitedBuilder().setReason(reason);
    return e;
  }

  public static Event.Builder deleted(String id, String reason) {
    return Event.newBuilder().setJobDeleted(JobDeleted.newBuilder().setJobId(id).setReason(reason));
  }

  public static Event.Builder killRequested(String id, String reason) {
    return Event.newBuilder()
        .setJobKillRequested(JobKillRequested.newBuilder().setJobId(id).setReason(reason));
  }

  public static Event.Builder requeued(String id, String reason) {
    return Event.newBuilder()
        .setJobRequeued(JobRequeued.newBuilder().setJobId(id).setReason(reason));
  }

  public static Event.Builder purged(String id) {
    return Event.newBuilder().setJobPurged(JobPurged.newBuilder().setJobId(id));
  }

  public static Queue queue(String name, String... keyValues) {
    Queue.Builder q = Queue.newBuilder().setName(name);
    for (int i = 0; i < keyValues.length; i += 2) {
      q.putAttributes(keyValues[i], keyValues[i + 1]);
    }
    return q.build();
  }

  public static Event.Builder queueCreated(String name, String... keyValues) {
    return Event.newBuilder()
        .setQueueCreated(QueueCreated.newBuilder().setQueue(queue(name, keyValues)));
  }

  public static Event.Builder queueSet(String name, String attribute, String value) {
    return Event.newBuilder()
        .setQueueAttributesChanged(
            QueueAttributesChanged.newBuilder()
                .setQueue(name)
                .addChanges(AttributeValue.newBuilder().setName(attribute).setValue(value)));
  }

  public static Event.Builder queueUnset(String name, String attribute) {
    return Event.newBuilder()
        .setQueueAttributesChanged(
            QueueAttributesChanged.newBuilder()
                .setQueue(name)
                .addChanges(AttributeValue.newBuilder().setName(attribute).setUnset(true)));
  }

  public static Event.Builder queueDeleted(String name) {
    return Event.newBuilder().setQueueDeleted(QueueDeleted.newBuilder().setQueue(name));
  }

  public static Node node(String name, int cpus) {
    return Node.newBuilder()
        .setName(name)
        .setNp(cpus)
        .addAllCpuIds(IntStream.range(0, cpus).boxed().toList())
        .setRegistered(true)
        .setNtype("cluster")
        .build();
  }

  public static Event.Builder nodeCreated(String name, int cpus) {
    return Event.newBuilder().setNodeCreated(NodeCreated.newBuilder().setNode(node(name, cpus)));
  }

  public static Event.Builder nodeUpdated(Node node, String... changed) {
    return Event.newBuilder()
        .setNodeUpdated(
            NodeUpdated.newBuilder().setNode(node).addAllChanged(Arrays.asList(changed)));
  }

  public static Event.Builder nodeDeleted(String name) {
    return Event.newBuilder().setNodeDeleted(NodeDeleted.newBuilder().setNode(name));
  }

  public static Event.Builder serverSet(String name, String value) {
    return Event.newBuilder()
        .setServerAttributesChanged(
            ServerAttributesChanged.newBuilder()
                .addChanges(AttributeValue.newBuilder().setName(name).setValue(value)));
  }

  public static Event.Builder serverUnset(String name) {
    return Event.newBuilder()
        .setServerAttributesChanged(
            ServerAttributesChanged.newBuilder()
                .addChanges(AttributeValue.newBuilder().setName(name).setUnset(true)));
  }
}

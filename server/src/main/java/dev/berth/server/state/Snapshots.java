package dev.berth.server.state;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobRestored;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.ReservationCreated;
import dev.berth.proto.ServerAttributesChanged;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A state written back as events (Kafka's way with metadata images): loading a snapshot is {@link
 * StateMachine#restore} over these events, the same apply code the journal goes through, so
 * snapshot and replay cannot drift apart. An array's subjobs are written as what differs from their
 * parent, so that the image takes about the bytes the state takes in memory.
 */
public final class Snapshots {
  private static final Comparator<Job> JOB_ORDER =
      Comparator.comparingLong(Job::getNumber)
          .thenComparing(j -> !j.getArrayParent().isEmpty())
          .thenComparingInt(Job::getArrayIndex);

  private Snapshots() {}

  public static List<Event> image(ClusterState s) {
    List<Event> events = new ArrayList<>(s.jobCount() + s.nodes.size() + s.queues.size() + 1);
    ServerAttributesChanged.Builder server = ServerAttributesChanged.newBuilder();
    for (Map.Entry<String, String> a : s.server.entrySet()) {
      server.addChanges(AttributeValue.newBuilder().setName(a.getKey()).setValue(a.getValue()));
    }
    server.addChanges(
        AttributeValue.newBuilder()
            .setName(ServerAttributeNames.NEXT_JOB_NUMBER)
            .setValue(Long.toString(s.nextJobNumber)));
    events.add(Event.newBuilder().setServerAttributesChanged(server).build());
    s.queues
        .values()
        .forEach(
            q ->
                events.add(
                    Event.newBuilder()
                        .setQueueCreated(QueueCreated.newBuilder().setQueue(q))
                        .build()));
    s.reservations
        .values()
        .forEach(
            r ->
                events.add(
                    Event.newBuilder()
                        .setReservationCreated(ReservationCreated.newBuilder().setReservation(r))
                        .build()));
    s.nodes
        .values()
        .forEach(
            n ->
                events.add(
                    Event.newBuilder()
                        .setNodeCreated(NodeCreated.newBuilder().setNode(n))
                        .build()));
    s.jobs.values().stream().sorted(JOB_ORDER).forEach(j -> events.add(restored(s, j)));
    events.add(Event.newBuilder().setUsageRestored(UsageCharges.image(s)).build());
    return events;
  }

  /** A job as it stands; a subjob as what differs from the subjob its parent makes. */
  private static Event restored(ClusterState s, Job job) {
    Job parent = s.jobs.get(job.getArrayParent());
    if (parent != null) {
      return Event.newBuilder().setSubjobRestored(Jobs.subjobImage(parent, job)).build();
    }
    JobRestored.Builder r = JobRestored.newBuilder().setJob(job);
    if (job.getArrayParent().isEmpty()) {
      r.setScript(s.script(job));
    }
    return Event.newBuilder().setJobRestored(r).build();
  }
}

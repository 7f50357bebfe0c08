package dev.berth.server.command;

import dev.berth.proto.Event;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Response;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.ArrayList;
import java.util.List;

/**
 * What a command decided: the events to make durable (without sequence number and time, which the
 * journal pipeline assigns), the reply for the caller, and messages for moms. Nothing here has
 * happened yet; replies and mom messages go out only after the events are durable.
 */
public final class Outcome {
  /** A message for the mom of one node. */
  public record Notice(String node, MomInbound message) {}

  private final List<Event> events = new ArrayList<>();
  private final List<Notice> notices = new ArrayList<>();
  private Response.Builder reply = Response.newBuilder();

  public Outcome event(Event.Builder event) {
    events.add(event.build());
    return this;
  }

  /**
   * Adds {@code event} and returns the state it leaves {@code view} in, dated {@code nowMillis} as
   * the pipeline will date it: for the checks that follow in the same command.
   */
  public ClusterState event(ClusterState view, Event.Builder event, long nowMillis) {
    event(event);
    return StateMachine.apply(
        view, event.clone().setSeq(view.lastSeq() + 1).setTime(nowMillis).build());
  }

  public Outcome notice(String node, MomInbound message) {
    notices.add(new Notice(node, message));
    return this;
  }

  public Outcome reply(Response.Builder reply) {
    this.reply = reply;
    return this;
  }

  public List<Event> events() {
    return events;
  }

  public List<Notice> notices() {
    return notices;
  }

  public Response.Builder reply() {
    return reply;
  }
}

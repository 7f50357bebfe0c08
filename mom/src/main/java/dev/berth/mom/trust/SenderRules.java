package dev.berth.mom.trust;

import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import java.util.Optional;
import java.util.Set;

/**
 * Who may tell a mom what, decided from the sender's proven identity and what the mom knows of its
 * jobs, never from what the message says: the server it follows may run, signal, suspend and kill
 * jobs; a job's mother superior may ask its sisters to join, spawn and kill; a sister may report to
 * the mother superior only about itself, and only for jobs it is part of. A mom credential thus
 * lets its holder do nothing beyond the mother-superior/sister protocol for jobs it shares.
 */
public final class SenderRules {
  private SenderRules() {}

  /** What this mom knows that decides who may send what. */
  public interface Knowledge {
    /** The server this mom reports to, once one has proven itself. */
    Optional<Identity> server();

    /** The mother superior of a job this node is a sister of. */
    Optional<String> motherSuperiorOf(String jobId);

    /** Every node of a job this node is the mother superior of; empty if it is not. */
    Set<String> nodesOf(String jobId);
  }

  /** Why {@code from} may not send {@code message}, or empty when it may. */
  public static Optional<String> refusal(Identity from, MomInbound message, Knowledge knows) {
    return switch (message.getBodyCase()) {
      case RUN, SIGNAL, OBIT_ACK, STARTED_ACK, SUSPEND, ORDER -> fromServer(from, message, knows);
      case KILL -> kill(from, message.getKill(), knows);
      case JOIN ->
          fromMom(from, message, message.getJoin().getMotherSuperior())
              .or(() -> notItsOwn(from, message.getJoin().getJob().getId(), knows));
      case JOIN_REPLY ->
          fromSister(
              from,
              message,
              message.getJoinReply().getJobId(),
              message.getJoinReply().getNode(),
              knows);
      case SISTER_DONE ->
          fromSister(
              from,
              message,
              message.getSisterDone().getJobId(),
              message.getSisterDone().getNode(),
              knows);
      case SISTER_USAGE ->
          fromSister(
              from,
              message,
              message.getSisterUsage().getJobId(),
              message.getSisterUsage().getNode(),
              knows);
      case TASK_STARTED ->
          fromSister(
              from,
              message,
              message.getTaskStarted().getJobId(),
              message.getTaskStarted().getNode(),
              knows);
      case TASK_OUTPUT ->
          fromSister(
              from,
              message,
              message.getTaskOutput().getJobId(),
              message.getTaskOutput().getNode(),
              knows);
      case TASK_OBIT ->
          fromSister(
              from,
              message,
              message.getTaskObit().getJobId(),
              message.getTaskObit().getNode(),
              knows);
      case SPAWN ->
          fromMom(from, message, message.getSpawn().getFrom())
              .or(
                  () ->
                      fromMotherSuperior(
                          from, message, message.getSpawn().getJobId(), knows, true));
      case SIGNAL_TASK ->
          fromMotherSuperior(from, message, message.getSignalTask().getJobId(), knows, false);
      case TASK_INPUT ->
          fromMotherSuperior(from, message, message.getTaskInput().getJobId(), knows, false);
      case TASK_OUTPUT_ACK ->
          fromMotherSuperior(from, message, message.getTaskOutputAck().getJobId(), knows, false);
      case TASK_OBIT_ACK ->
          fromMotherSuperior(from, message, message.getTaskObitAck().getJobId(), knows, false);
      case BODY_NOT_SET -> Optional.of("an empty message from " + from);
    };
  }

  private static Optional<String> fromServer(Identity from, MomInbound m, Knowledge knows) {
    if (from.role() == Role.SERVER && knows.server().map(from::equals).orElse(false)) {
      return Optional.empty();
    }
    return Optional.of(
        what(m)
            + " from "
            + from
            + ", which is not the server this mom reports to"
            + knows.server().map(s -> " (" + s + ")").orElse(" (none yet)"));
  }

  /** KILL_JOB from the server, or from the job's mother superior to its sister. */
  private static Optional<String> kill(Identity from, KillJob kill, Knowledge knows) {
    MomInbound m = MomInbound.newBuilder().setKill(kill).build();
    if (kill.getFrom().isEmpty()) {
      return fromServer(from, m, knows);
    }
    return fromMom(from, m, kill.getFrom())
        .or(
            () ->
                knows
                    .motherSuperiorOf(kill.getJobId())
                    .filter(ms -> !ms.equals(from.name()))
                    .map(ms -> what(m) + " from " + from + ", but its mother superior is " + ms));
  }

  /** A message that names its sender's node must name the node that sent it. */
  private static Optional<String> fromMom(Identity from, MomInbound m, String named) {
    if (from.role() != Role.MOM) {
      return Optional.of(what(m) + " from " + from + ", which is not a mom");
    }
    if (!from.name().equals(named)) {
      return Optional.of(what(m) + " from " + from + " that claims to come from node " + named);
    }
    return Optional.empty();
  }

  /** A mother superior cannot make this node a sister of a job this node is mother superior of. */
  private static Optional<String> notItsOwn(Identity from, String jobId, Knowledge knows) {
    return knows.nodesOf(jobId).isEmpty()
        ? Optional.empty()
        : Optional.of("JOIN_JOB for job " + jobId + " from " + from + ": this node runs it");
  }

  private static Optional<String> fromSister(
      Identity from, MomInbound m, String jobId, String node, Knowledge knows) {
    return fromMom(from, m, node)
        .or(
            () ->
                knows.nodesOf(jobId).contains(from.name())
                    ? Optional.empty()
                    : Optional.of(
                        what(m)
                            + " from "
                            + from
                            + ", which is not a node of job "
                            + jobId
                            + " here"));
  }

  /**
   * From the mother superior of a sister job; a spawn for a job this node does not have is let
   * through (from the node it names) so that its sender hears why it cannot run.
   */
  private static Optional<String> fromMotherSuperior(
      Identity from, MomInbound m, String jobId, Knowledge knows, boolean unknownJobAllowed) {
    if (from.role() != Role.MOM) {
      return Optional.of(what(m) + " from " + from + ", which is not a mom");
    }
    Optional<String> ms = knows.motherSuperiorOf(jobId);
    if (ms.isEmpty()) {
      return unknownJobAllowed
          ? Optional.empty()
          : Optional.of(what(m) + " from " + from + " for job " + jobId + ", which is not here");
    }
    return ms.get().equals(from.name())
        ? Optional.empty()
        : Optional.of(
            what(m)
                + " from "
                + from
                + ", but the mother superior of "
                + jobId
                + " is "
                + ms.get());
  }

  private static String what(MomInbound m) {
    return m.getBodyCase().name();
  }
}

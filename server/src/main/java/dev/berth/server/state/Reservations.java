package dev.berth.server.state;

import dev.berth.proto.Reservation;

/**
 * The administrators' reservations as state: made (taking their number from next_job_number, as
 * OpenPBS's do), begun, ended, and removed once their queue is empty. A reservation's queue exists
 * for as long as it does.
 */
final class Reservations {
  private Reservations() {}

  static void created(StateBuilder b, Reservation r) {
    if (b.reservations.containsKey(r.getId())) {
      throw new IllegalTransitionException("reservation " + r.getId() + " already exists");
    }
    if (!b.queues.containsKey(r.getQueue())) {
      throw new IllegalTransitionException(
          "reservation " + r.getId() + " has no queue " + r.getQueue());
    }
    for (Reservation other : b.reservations.values()) {
      if (other.getQueue().equals(r.getQueue())) {
        throw new IllegalTransitionException(
            "queue " + r.getQueue() + " is already reservation " + other.getId() + "'s");
      }
    }
    if (r.getEnd() <= r.getStart()) {
      throw new IllegalTransitionException("reservation " + r.getId() + " ends before it begins");
    }
    b.reservations = b.reservations.plus(r.getId(), r);
    b.nextJobNumber = Math.max(b.nextJobNumber, r.getNumber() + 1);
  }

  static void began(StateBuilder b, String id) {
    Reservation r = require(b, id, "begin", Reservation.State.CONFIRMED);
    b.reservations =
        b.reservations.plus(id, r.toBuilder().setState(Reservation.State.RUNNING).build());
  }

  static void ended(StateBuilder b, String id, String reason) {
    Reservation r = require(b, id, "end", Reservation.State.CONFIRMED, Reservation.State.RUNNING);
    b.reservations =
        b.reservations.plus(
            id, r.toBuilder().setState(Reservation.State.FINISHED).setEndReason(reason).build());
  }

  static void removed(StateBuilder b, String id) {
    require(b, id, "remove", Reservation.State.FINISHED);
    b.reservations = b.reservations.minus(id);
  }

  /** A queue that a reservation still has cannot go. */
  static void requireNoReservation(StateBuilder b, String queue) {
    for (Reservation r : b.reservations.values()) {
      if (r.getQueue().equals(queue)) {
        throw new IllegalTransitionException(
            "queue " + queue + " belongs to reservation " + r.getId());
      }
    }
  }

  private static Reservation require(
      StateBuilder b, String id, String what, Reservation.State... allowed) {
    Reservation r = b.reservations.get(id);
    if (r == null) {
      throw new IllegalTransitionException("no reservation " + id);
    }
    for (Reservation.State s : allowed) {
      if (r.getState() == s) {
        return r;
      }
    }
    throw new IllegalTransitionException(
        "cannot " + what + " reservation " + id + " in state " + r.getState());
  }
}

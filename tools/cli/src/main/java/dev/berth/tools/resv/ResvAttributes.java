package dev.berth.tools.resv;

import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationStatus;
import dev.berth.tools.format.Attr;
import dev.berth.tools.format.StateCounts;
import java.util.ArrayList;
import java.util.List;

/**
 * What pbs_rstat -f shows of a reservation: OpenPBS's attribute names in its order (those Berth
 * has), then Berth's own: why a finished reservation ended, and its queue's jobs by state as qstat
 * -Q -f counts them.
 */
final class ResvAttributes {
  private ResvAttributes() {}

  static List<Attr> of(ReservationStatus status, String server) {
    Reservation r = status.getReservation();
    List<Attr> attrs = new ArrayList<>();
    if (!r.getName().isEmpty()) {
      attrs.add(Attr.text("Reserve_Name", r.getName()));
    }
    attrs.add(Attr.text("Reserve_Owner", r.getOwner()));
    attrs.add(Attr.text("reserve_state", "RESV_" + r.getState()));
    attrs.add(Attr.time("reserve_start", r.getStart()));
    attrs.add(Attr.time("reserve_end", r.getEnd()));
    attrs.add(Attr.number("reserve_duration", r.getEnd() - r.getStart()));
    attrs.add(Attr.text("queue", r.getQueue()));
    attrs.add(Attr.text("Resource_List", "nodes", r.getNodesRequest()));
    if (r.getNodesCount() > 0) {
      attrs.add(Attr.text("resv_nodes", String.join("+", r.getNodesList())));
    }
    if (status.getUsersCount() > 0) {
      attrs.add(Attr.text("Authorized_Users", String.join(",", status.getUsersList())));
    }
    if (!server.isEmpty()) {
      attrs.add(Attr.text("server", server));
    }
    attrs.add(Attr.time("ctime", r.getCtime()));
    if (!r.getEndReason().isEmpty()) {
      attrs.add(Attr.text("end_reason", r.getEndReason()));
    }
    attrs.add(Attr.text("state_count", new StateCounts(status.getStateCountMap()).text()));
    return attrs;
  }
}

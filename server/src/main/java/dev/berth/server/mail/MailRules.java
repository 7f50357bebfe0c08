package dev.berth.server.mail;

import dev.berth.proto.Event;
import dev.berth.proto.Job;
import java.util.List;
import java.util.Optional;

/**
 * Which mail an event of a job's life calls for, whether the job wants it, and who gets it:
 * Torque's {@code svr_mailowner} rules over Berth's events.
 *
 * <table>
 *   <caption>events and their mail</caption>
 *   <tr><th>event</th><th>when</th><th>mail</th></tr>
 *   <tr><td>JobStarted</td><td></td><td>b</td></tr>
 *   <tr><td>JobExited</td><td>a negative exit status (failed start, walltime, node lost) or
 *       processes killed for memory</td><td>a, forced</td></tr>
 *   <tr><td>JobExited</td><td>killed by the server (a reservation's end)</td><td>a</td></tr>
 *   <tr><td>JobExited</td><td>purged (qdel -p) by someone else, not mailed at an earlier
 *       qdel</td><td>d, forced</td></tr>
 *   <tr><td>JobExited</td><td>otherwise, qdel'ed jobs included</td><td>e</td></tr>
 *   <tr><td>JobKillRequested, JobDeleted</td><td>by someone else than the owner</td>
 *       <td>d, forced</td></tr>
 *   <tr><td>JobDeleted</td><td>by the server (a dependency that can never be met)</td>
 *       <td>a</td></tr>
 * </table>
 *
 * <p>One event makes at most one mail, so an end that sends an abort mail sends no end mail.
 */
public final class MailRules {
  /**
   * A mail an event calls for.
   *
   * @param detail the text {@code %d} stands for
   * @param exitStatus the job's exit status, for Mail_Points {@code f} (0 before it ends)
   */
  public record Notice(MailPoint point, boolean forced, String detail, int exitStatus) {}

  private MailRules() {}

  /** The mail {@code e} calls for, given the job as {@code e} left it. */
  public static Optional<Notice> notice(Event e, Job job) {
    return switch (e.getBodyCase()) {
      case JOB_STARTED -> Optional.of(new Notice(MailPoint.BEGIN, false, "", 0));
      case JOB_EXITED -> ended(e, job);
      case JOB_KILL_REQUESTED ->
          // a preemption's or a qrerun's kill is no delete: the job comes back
          e.getJobKillRequested().getPreemptedBy().isEmpty() && !e.getJobKillRequested().getRerun()
              ? deletedBy(e.getActor(), e.getJobKillRequested().getReason(), job)
              : Optional.empty();
      case JOB_DELETED ->
          isUser(e.getActor())
              ? deletedBy(e.getActor(), e.getJobDeleted().getReason(), job)
              : Optional.of(new Notice(MailPoint.ABORT, false, e.getJobDeleted().getReason(), 0));
      default -> Optional.empty();
    };
  }

  private static Optional<Notice> ended(Event e, Job job) {
    var x = e.getJobExited();
    if (isUser(e.getActor())) {
      // qdel -p ends the job without its obit, so without an end mail (as Torque's purge); a
      // delete mail unless its earlier qdel by the same user sent one
      return job.getDeleteRequestedBy().equals(e.getActor())
          ? Optional.empty()
          : deletedBy(e.getActor(), x.getReason(), job);
    }
    int status = x.getExitStatus();
    String resources = MailText.exitDetail(status, x.getResourcesUsed());
    String requester = job.getDeleteRequestedBy();
    if (isUser(requester)) { // qdel'ed: Torque ignores the special exit statuses then
      return Optional.of(new Notice(MailPoint.END, false, resources, status));
    }
    String reason = x.getReason().isEmpty() ? job.getComment() : x.getReason();
    if (!requester.isEmpty()) { // killed by the server itself (a reservation ended)
      return Optional.of(new Notice(MailPoint.ABORT, false, withReason(reason, resources), status));
    }
    if (status < 0 || x.getResourcesUsed().getOomKills() > 0) {
      return Optional.of(new Notice(MailPoint.ABORT, true, withReason(reason, resources), status));
    }
    return Optional.of(new Notice(MailPoint.END, false, resources, status));
  }

  private static String withReason(String reason, String resources) {
    return reason.isEmpty() ? resources : reason + "\n" + resources;
  }

  /**
   * Torque's delete mail goes only when someone other than the owner deleted the job: "Job deleted
   * at request of user@host", then the reason when it says more than who.
   */
  private static Optional<Notice> deletedBy(String actor, String reason, Job job) {
    if (!isUser(actor) || userOf(actor).equals(job.getEuser())) {
      return Optional.empty();
    }
    String detail = "Job deleted at request of " + actor;
    if (!reason.isEmpty() && !reason.equals("deleted by " + actor)) {
      detail += "\n" + reason;
    }
    return Optional.of(
        new Notice(MailPoint.DELETE, true, detail, job.hasExitStatus() ? job.getExitStatus() : 0));
  }

  /** Users act as {@code user@host}; the server, scheduler and nodes under their own names. */
  private static boolean isUser(String actor) {
    return actor.indexOf('@') > 0;
  }

  private static String userOf(String principal) {
    return principal.substring(0, principal.indexOf('@'));
  }

  /** Whether the job and the server want the mail: svr_mailowner's tests, in its order. */
  public static boolean wanted(Notice n, Job job, MailSettings s) {
    String points = job.getMailPoints();
    if (s.never() || points.startsWith("p")) {
      return false;
    }
    if (n.forced() && !s.noMailForce()) {
      return true;
    }
    if (points.isEmpty()) {
      return n.point() == MailPoint.ABORT;
    }
    if (points.indexOf('f') >= 0) {
      return n.exitStatus() != 0;
    }
    if (points.startsWith("n")) {
      return false;
    }
    return points.indexOf(n.point().letter()) >= 0;
  }

  /**
   * Who gets the job's mail: its Mail_Users; else its owner at mail_domain; else Job_Owner ({@code
   * user@submit-host}). Whatever is not a plain address is left out: Torque takes any -M (scripts
   * carry placeholders such as {@code <email address>}), and a list becomes the To: header, where
   * nothing may read as header or MTA syntax.
   */
  public static List<String> recipients(Job job, MailSettings s) {
    List<String> wanted;
    if (!job.getMailUsers().isBlank()) {
      wanted = List.of(job.getMailUsers().split(","));
    } else if (s.domain() != null && !s.domain().isEmpty()) {
      wanted = List.of(job.getEuser() + "@" + s.domain());
    } else {
      wanted = List.of(job.getOwner());
    }
    return wanted.stream()
        .map(String::trim)
        .filter(MailAddresses::isAddress)
        .limit(MailAddresses.MAX_ADDRESSES)
        .toList();
  }
}

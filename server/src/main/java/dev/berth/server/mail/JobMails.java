package dev.berth.server.mail;

import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.server.journal.EventJobs;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mail a durable batch of events calls for. The server asks once a batch is in the journal,
 * never while it applies events, so a journal replayed at a start or by a standby mails nothing
 * again: only the active server, for what it has just recorded, sends.
 */
public final class JobMails {
  private static final Logger log = LoggerFactory.getLogger(JobMails.class);

  private JobMails() {}

  /**
   * The letters for {@code events}, the batch that took the state from {@code before} to {@code
   * after}.
   */
  public static List<Letter> letters(ClusterState before, ClusterState after, List<Event> events) {
    List<Letter> letters = new ArrayList<>();
    MailSettings settings = null;
    for (Event e : events) {
      Optional<String> id = EventJobs.jobId(e);
      if (id.isEmpty()) {
        continue;
      }
      if (settings == null) {
        settings = MailSettings.of(after);
        if (settings.never()) {
          return letters;
        }
      }
      Optional<Job> known = after.job(id.get()).or(() -> before.job(id.get()));
      if (known.isEmpty()) {
        continue; // made and purged within the batch
      }
      Job job = asLeftBy(e, known.get());
      Optional<MailRules.Notice> notice = MailRules.notice(e, job);
      if (notice.isPresent() && MailRules.wanted(notice.get(), job, settings)) {
        letter(job, notice.get(), settings).ifPresent(letters::add);
      }
    }
    return letters;
  }

  private static Optional<Letter> letter(Job job, MailRules.Notice n, MailSettings s) {
    List<String> to = MailRules.recipients(job, s);
    if (to.isEmpty()) {
      log.warn(
          "job {}: no mail address to send its '{}' mail to (Mail_Users, owner {})",
          job.getId(),
          n.point().letter(),
          job.getOwner());
      return Optional.empty();
    }
    return Optional.of(
        new Letter(
            job.getId(),
            n.point(),
            s.sendmail() == null ? "" : s.sendmail(),
            s.from(),
            MailText.message(s, to, job, n.point(), n.detail())));
  }

  /**
   * The job with what its end recorded, even when the state at hand is from before it (the job was
   * purged later in the same batch).
   */
  private static Job asLeftBy(Event e, Job job) {
    if (!e.hasJobExited()) {
      return job;
    }
    var x = e.getJobExited();
    return job.toBuilder()
        .setExitStatus(x.getExitStatus())
        .setResourcesUsed(x.getResourcesUsed())
        .setExitReason(x.getReason())
        .build();
  }
}

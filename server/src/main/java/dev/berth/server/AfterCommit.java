package dev.berth.server;

import dev.berth.proto.Event;
import dev.berth.server.accounting.AccountingLog;
import dev.berth.server.mail.JobMails;
import dev.berth.server.mail.Outbox;
import dev.berth.server.metrics.ServerMetrics;
import dev.berth.server.state.ClusterState;
import java.util.List;

/**
 * What follows a batch of events once it is durable, and never while the journal is replayed: the
 * job mail it sends, the accounting records it writes, the counts the metrics keep. Each only
 * queues its work, off the server's actor, or counts.
 */
@FunctionalInterface
public interface AfterCommit {
  void committed(ClusterState before, ClusterState after, List<Event> events);

  /** The job mail of committed events, posted to {@code outbox}. */
  static AfterCommit mail(Outbox outbox) {
    return (before, after, events) -> JobMails.letters(before, after, events).forEach(outbox::post);
  }

  /**
   * Job mail to {@code outbox}, accounting records to {@code accounting} unless null, and the
   * counts of {@code metrics}.
   */
  static AfterCommit of(Outbox outbox, AccountingLog accounting, ServerMetrics metrics) {
    AfterCommit mail = mail(outbox);
    return (before, after, events) -> {
      mail.committed(before, after, events);
      if (accounting != null) {
        accounting.record(before, events);
      }
      metrics.committed(before, events);
    };
  }
}

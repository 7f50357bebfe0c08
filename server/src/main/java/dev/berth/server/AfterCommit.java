package dev.berth.server;

import dev.berth.proto.Event;
import dev.berth.server.accounting.AccountingLog;
import dev.berth.server.mail.JobMails;
import dev.berth.server.mail.Outbox;
import dev.berth.server.state.ClusterState;
import java.util.List;

/**
 * What follows a batch of events once it is durable, and never while the journal is replayed: the
 * job mail it sends, the accounting records it writes. Each only queues its work, off the server's
 * actor.
 */
@FunctionalInterface
public interface AfterCommit {
  void committed(ClusterState before, ClusterState after, List<Event> events);

  /** The job mail of committed events, posted to {@code outbox}. */
  static AfterCommit mail(Outbox outbox) {
    return (before, after, events) -> JobMails.letters(before, after, events).forEach(outbox::post);
  }

  /** Job mail to {@code outbox}, and accounting records to {@code accounting} unless null. */
  static AfterCommit of(Outbox outbox, AccountingLog accounting) {
    AfterCommit mail = mail(outbox);
    return accounting == null
        ? mail
        : (before, after, events) -> {
          mail.committed(before, after, events);
          accounting.record(before, events);
        };
  }
}

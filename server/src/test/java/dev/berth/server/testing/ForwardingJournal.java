package dev.berth.server.testing;

import dev.berth.proto.Event;
import dev.berth.server.journal.Journal;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A journal that hands everything but {@link #append} to a real one: the tests' way to watch or
 * hold what the server writes.
 */
public abstract class ForwardingJournal implements Journal {
  protected final Journal journal;

  protected ForwardingJournal(Journal journal) {
    this.journal = journal;
  }

  /**
   * Writes {@code events} to {@code journal} numbered from 1 (at time 1000, by {@code actor} where
   * an event names none) and returns the state they make: what a server starts from.
   */
  public static ClusterState seed(Journal journal, String actor, Event.Builder... events)
      throws Exception {
    ClusterState s = ClusterState.EMPTY;
    List<Event> numbered = new ArrayList<>();
    for (Event.Builder body : events) {
      if (body.getActor().isEmpty()) {
        body.setActor(actor);
      }
      Event e = body.setSeq(s.lastSeq() + 1).setTime(1_000).build();
      s = StateMachine.apply(s, e);
      numbered.add(e);
    }
    journal.append(numbered).get(10, TimeUnit.SECONDS);
    return s;
  }

  @Override
  public void replay(long afterSeq, Consumer<Event> consumer) {
    journal.replay(afterSeq, consumer);
  }

  @Override
  public long lastSeq() {
    return journal.lastSeq();
  }

  @Override
  public Optional<Snapshot> latestSnapshot() {
    return journal.latestSnapshot();
  }

  @Override
  public void saveSnapshot(Snapshot snapshot) {
    journal.saveSnapshot(snapshot);
  }

  @Override
  public void history(String jobId, Consumer<Event> consumer) {
    journal.history(jobId, consumer);
  }

  @Override
  public void close() {
    journal.close();
  }
}

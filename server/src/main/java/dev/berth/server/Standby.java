package dev.berth.server;

import dev.berth.proto.Event;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.JournalException;
import dev.berth.server.journal.KafkaJournal;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.journal.TopicReader;
import dev.berth.server.journal.kafka.KafkaFailures;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby server's warm copy of the cluster: it follows the journal topic (committed records
 * only) into the local copy and applies each event to the state, taking a snapshot now and then, so
 * that taking over replays only what was committed since the last poll. It never writes to the
 * topic.
 */
public final class Standby implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Standby.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration RETRY = Duration.ofSeconds(1);

  /**
   * What a standby hands to the server taking over: the state as of the local copy's last event,
   * the local copy, and the reader positioned after it (both still open).
   */
  public record Handover(ClusterState state, RocksJournal local, TopicReader reader) {}

  private final KafkaJournal.Settings settings;
  private final long snapshotEvery;
  private final Thread thread;
  private volatile boolean stopping;
  private ClusterState state;
  private RocksJournal local;
  private TopicReader reader;
  private RuntimeException failure;
  private boolean ended;

  private Standby(KafkaJournal.Settings settings, long snapshotEvery) {
    this.settings = settings;
    this.snapshotEvery = snapshotEvery;
    this.thread = new Thread(this::follow, "berth-standby");
    thread.setDaemon(true);
  }

  /** Starts following the topic in the background. */
  public static Standby start(KafkaJournal.Settings settings, long snapshotEvery) {
    Standby standby = new Standby(settings, snapshotEvery);
    standby.thread.start();
    return standby;
  }

  /**
   * Stops following and hands over the warm copy, which the caller then owns. Fails (before anyone
   * is fenced) if following failed or the standby was closed or handed over already.
   */
  public synchronized Handover handOver() {
    stop();
    if (ended) {
      throw new IllegalStateException("this standby was closed or has handed over already");
    }
    ended = true;
    if (failure != null) {
      close(local, reader);
      throw failure;
    }
    if (reader == null) {
      reader = new TopicReader(settings, local); // the brokers were away when it stopped
    }
    return new Handover(state, local, reader);
  }

  /** Stops following (if it still does) and closes the local copy, unless it was handed over. */
  @Override
  public synchronized void close() {
    stop();
    if (!ended) {
      ended = true;
      close(local, reader);
    }
  }

  private static void close(RocksJournal local, TopicReader reader) {
    if (reader != null) {
      reader.close();
    }
    if (local != null) {
      local.close();
    }
  }

  private void stop() {
    stopping = true;
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true; // the follower must end before its copy changes hands
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The follower thread; it alone touches the copy, the reader and the state until it ends, and
   * {@link #stop} joins it before anyone else does.
   */
  private void follow() {
    try {
      local = KafkaJournal.openLocal(settings);
      state = BerthServer.recover(local).state();
      log.info("standing by with the state at event {}", state.lastSeq());
      long lastSnapshot = state.lastSeq();
      while (!stopping) {
        try {
          if (reader == null) {
            if (!topicReady()) {
              sleep();
              continue;
            }
            reader = new TopicReader(settings, local);
          }
          reader.poll(POLL, this::apply);
          if (state.lastSeq() - lastSnapshot >= snapshotEvery) {
            local.saveSnapshot(new Journal.Snapshot(state.lastSeq(), Snapshots.image(state)));
            lastSnapshot = state.lastSeq();
          }
        } catch (KafkaException e) {
          // The brokers are away; the copy is as good as it was, and following resumes later
          // from the offset stored with it.
          log.warn(
              "{}",
              KafkaFailures.explain(
                  "cannot follow the journal topic " + settings.topic(), settings.brokers(), e));
          if (reader != null) {
            reader.close();
            reader = null;
          }
          sleep();
        }
      }
    } catch (RuntimeException e) {
      failure = e instanceof JournalException je ? je : new JournalException(e.toString(), e);
      log.error("the standby cannot follow the journal; it cannot take over: {}", e.toString());
    }
  }

  /** Creates the topic if no server has yet; false (and a warning) while the brokers are away. */
  private boolean topicReady() {
    try {
      KafkaJournal.ensureTopic(settings);
      return true;
    } catch (JournalException e) {
      log.warn("standing by without the journal topic: {}", e.getMessage());
      return false;
    }
  }

  private void apply(List<Event> events) {
    ClusterState s = state;
    for (Event e : events) {
      s = StateMachine.apply(s, e);
    }
    state = s;
  }

  private void sleep() {
    try {
      Thread.sleep(RETRY.toMillis());
    } catch (InterruptedException e) {
      stopping = true; // nobody interrupts this thread but a JVM going away
    }
  }
}

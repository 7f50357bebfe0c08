package dev.berth.server.journal;

import dev.berth.proto.Event;
import dev.berth.server.journal.kafka.BrokerProbe;
import dev.berth.server.journal.kafka.Brokers;
import dev.berth.server.journal.kafka.KafkaFailures;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal on a Kafka topic, for a server whose head node may be lost. One topic with one
 * partition keeps the events in one order. The active server writes each group of batches in one
 * transaction of an idempotent producer whose {@code transactional.id} every server of the cluster
 * shares: a server that opens the journal fences every earlier writer, whose next write then fails
 * (and a server whose write fails stops), so two servers never both write, even if one was only
 * paused. Readers take committed records only.
 *
 * <p>Every event is also kept in a local {@link RocksJournal} — the warm copy a restart replays
 * from, which also indexes job history and holds snapshots. Opening catches the local copy up with
 * the topic after fencing, so the new writer starts from everything any earlier one committed.
 */
public final class KafkaJournal implements Journal {
  private static final Logger log = LoggerFactory.getLogger(KafkaJournal.class);

  /**
   * Where and how: the brokers and how to reach them, the topic (created with one partition, the
   * replication factor and min.insync.replicas given, kept forever), the transactional id the
   * servers share, the local directory of the warm copy, and how long a write may take before it
   * fails and the server stops ({@link #WRITE_TIMEOUT} but in tests).
   */
  public record Settings(
      Brokers brokers,
      String topic,
      String transactionalId,
      int replicationFactor,
      int minInsyncReplicas,
      Path localDirectory,
      Duration writeTimeout) {
    public String bootstrapServers() {
      return brokers.bootstrap();
    }
  }

  /**
   * How long a write may wait for the brokers before it fails (and the server stops): long enough
   * to ride out a broker restart, short enough that commands do not hang for long.
   */
  public static final Duration WRITE_TIMEOUT = Duration.ofSeconds(30);

  /** The largest event record: a submission with the largest script (1 MiB) and its job. */
  static final int MAX_RECORD = 2 << 20;

  private final Settings settings;
  private final RocksJournal local;
  private final KafkaProducer<byte[], byte[]> producer;
  private final GroupCommit writer;
  private final AtomicReference<JournalException> failed = new AtomicReference<>();
  private volatile boolean fenced;

  private KafkaJournal(
      Settings settings, RocksJournal local, KafkaProducer<byte[], byte[]> producer) {
    this.settings = settings;
    this.local = local;
    this.producer = producer;
    writer = new GroupCommit("berth-kafka-journal-writer", this::write);
  }

  /**
   * Creates the topic if it is missing, opens the local copy, fences every earlier writer and
   * catches the local copy up with what they committed.
   */
  public static KafkaJournal open(Settings settings) {
    RocksJournal local = openLocal(settings);
    TopicReader reader;
    try {
      reader = new TopicReader(settings, local);
    } catch (KafkaException e) {
      local.close();
      throw new JournalException(
          KafkaFailures.explain("cannot open the journal", settings.brokers(), e), e);
    }
    return takeOver(settings, local, reader);
  }

  /**
   * Fences every earlier writer, then reads what they committed into {@code local} through {@code
   * reader} (a standby's, still open, so only the last few events remain to read). The journal owns
   * {@code local} from then on; the reader is closed.
   */
  public static KafkaJournal takeOver(Settings settings, RocksJournal local, TopicReader reader) {
    KafkaProducer<byte[], byte[]> producer = null;
    try (reader) {
      ensureTopic(settings); // a standby may never have reached the brokers
      long start = System.nanoTime();
      producer = new KafkaProducer<>(producerProperties(settings));
      producer.initTransactions(); // from here on, an earlier server's writes fail
      long fenced = System.nanoTime();
      long added = reader.readToEnd(settings.writeTimeout());
      log.info(
          "took over the journal {}: earlier writers fenced in {} ms, {} events read after in {}"
              + " ms",
          settings.topic(),
          (fenced - start) / 1_000_000,
          added,
          (System.nanoTime() - fenced) / 1_000_000);
      return new KafkaJournal(settings, local, producer);
    } catch (RuntimeException e) {
      if (producer != null) {
        producer.close(Duration.ZERO);
      }
      local.close();
      throw e instanceof JournalException je
          ? je
          : new JournalException(
              KafkaFailures.explain(
                  "cannot take over the journal " + settings.topic(), settings.brokers(), e),
              e);
    }
  }

  /** The local copy of the events (the warm copy a standby keeps and a restart replays). */
  public static RocksJournal openLocal(Settings settings) {
    return RocksJournal.open(settings.localDirectory().resolve("events"));
  }

  @Override
  public CompletableFuture<Void> append(List<Event> batch) {
    JournalException f = failed.get();
    return f != null ? CompletableFuture.failedFuture(f) : writer.append(batch);
  }

  /**
   * One transaction for the whole group; the local copy follows once it is committed. A group not
   * committed within the write timeout fails then, wherever Kafka may still be waiting, and so does
   * every write after it.
   */
  private void write(List<GroupCommit.Pending> group) {
    JournalException earlier = failed.get();
    if (earlier != null) {
      group.forEach(p -> p.done().completeExceptionally(earlier));
      return;
    }
    CompletableFuture<Void> deadline =
        new CompletableFuture<Void>()
            .orTimeout(settings.writeTimeout().toMillis(), TimeUnit.MILLISECONDS);
    deadline.whenComplete(
        (ok, late) -> {
          if (late != null) {
            fail(
                group,
                new JournalException(
                    "a write to the journal "
                        + settings.topic()
                        + " at "
                        + settings.brokers()
                        + " did not commit within "
                        + settings.writeTimeout().toSeconds()
                        + " s"));
          }
        });
    List<Event> all = new ArrayList<>();
    group.forEach(p -> all.addAll(p.events()));
    try {
      producer.beginTransaction();
      Future<RecordMetadata> lastSent = null;
      for (Event e : all) {
        lastSent =
            producer.send(
                new ProducerRecord<>(
                    settings.topic(),
                    0,
                    ByteBuffer.allocate(8).putLong(e.getSeq()).array(),
                    e.toByteArray(),
                    TopicReader.FORMAT_HEADERS));
      }
      producer.commitTransaction();
      local.append(all).join();
      if (lastSent != null) {
        TopicReader.writeOffset(settings, lastSent.get().offset() + 1);
      }
      group.forEach(p -> p.done().complete(null));
    } catch (RuntimeException | ExecutionException | InterruptedException e) {
      fail(group, failure(e));
    } finally {
      deadline.complete(null);
    }
  }

  /**
   * Fails what of {@code group} is still pending; if anything was, the journal has failed for good
   * (the server stops on the first failed write, and nothing may be written after a gap).
   */
  private void fail(List<GroupCommit.Pending> group, JournalException failure) {
    boolean pending = false;
    for (GroupCommit.Pending p : group) {
      pending |= p.done().completeExceptionally(failure);
    }
    if (pending) {
      failed.compareAndSet(null, failure);
    }
  }

  /**
   * Why a write failed. The open transaction is not aborted here: an abort may block as long as the
   * commit did, or throw (after a commit that timed out Kafka wants the commit retried), and this
   * server stops anyway. The brokers abort the transaction when the next writer fences this one, or
   * after its transaction timeout.
   */
  private JournalException failure(Exception e) {
    Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
    if (isFencing(cause)) {
      fenced = true;
      return new JournalException(
          "another server has taken over the journal on "
              + settings.topic()
              + " (this server's writes are fenced)",
          cause);
    }
    return new JournalException(
        KafkaFailures.explain(
            "a write to the journal " + settings.topic() + " failed", settings.brokers(), cause),
        cause);
  }

  /** With transactions version 2 a fenced producer sees either of these first. */
  static boolean isFencing(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ProducerFencedException || c instanceof InvalidProducerEpochException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void replay(long afterSeq, Consumer<Event> consumer) {
    local.replay(afterSeq, consumer);
  }

  @Override
  public long lastSeq() {
    return local.lastSeq();
  }

  @Override
  public Optional<Snapshot> latestSnapshot() {
    return local.latestSnapshot();
  }

  @Override
  public void saveSnapshot(Snapshot snapshot) {
    local.saveSnapshot(snapshot);
  }

  @Override
  public void history(String jobId, Consumer<Event> consumer) {
    local.history(jobId, consumer);
  }

  /** Whether another server has fenced this one. */
  public boolean fenced() {
    return fenced;
  }

  /**
   * Writes what is waiting and closes. A journal that has failed does not wait for its writer,
   * which may still be blocked in Kafka: a server whose journal failed must stop promptly.
   */
  @Override
  public void close() {
    boolean healthy = failed.get() == null;
    if (!writer.close(healthy ? settings.writeTimeout() : Duration.ofMillis(100))) {
      return;
    }
    producer.close(healthy ? Duration.ofSeconds(5) : Duration.ZERO);
    local.close();
  }

  /**
   * Every call of the write path is bounded by the write timeout: blocking in send (metadata, a
   * full buffer), in commit, delivery with its retries, and the transaction on the brokers.
   */
  private static Properties producerProperties(Settings s) {
    long timeout = s.writeTimeout().toMillis();
    Properties p = s.brokers().clientProperties();
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, s.transactionalId());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    // A submission's event holds its script (jobscript_max_size, at most 1 MiB) and its job.
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_RECORD));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeout));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeout));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeout / 3));
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(timeout));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  /** The topic's description; a topic just created may take a moment to reach every broker. */
  private static TopicDescription describe(Admin admin, String topic)
      throws ExecutionException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * One partition (one order), kept forever; an existing topic must have one partition. This is the
   * first contact with the brokers, so it looks at them first ({@link BrokerProbe}).
   */
  public static void ensureTopic(Settings s) {
    BrokerProbe.check(s.brokers());
    Properties p = s.brokers().clientProperties();
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
    try (Admin admin = Admin.create(p)) {
      NewTopic topic =
          new NewTopic(s.topic(), 1, (short) s.replicationFactor())
              .configs(
                  Map.of(
                      "min.insync.replicas", Integer.toString(s.minInsyncReplicas()),
                      "retention.ms", "-1",
                      "retention.bytes", "-1",
                      "cleanup.policy", "delete",
                      "unclean.leader.election.enable", "false",
                      "max.message.bytes", Integer.toString(MAX_RECORD)));
      try {
        admin.createTopics(List.of(topic)).all().get();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      TopicDescription d = describe(admin, s.topic());
      if (d.partitions().size() != 1) {
        throw new JournalException(
            "the topic "
                + s.topic()
                + " has "
                + d.partitions().size()
                + " partitions; a journal needs exactly one (one order of events)");
      }
    } catch (ExecutionException | KafkaException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new JournalException(
          KafkaFailures.explain(
              "cannot create or check the topic " + s.topic(), s.brokers(), cause),
          cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JournalException("interrupted while checking the topic " + s.topic(), e);
    }
  }
}

package dev.berth.server.journal;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.berth.core.FormatVersion;
import dev.berth.proto.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the journal topic's committed events into a local copy, from where the copy left off (the
 * topic offset stored beside it). The active server uses it once, to catch up after fencing; a
 * standby keeps one open and polls it, so that its copy and its state stay warm.
 */
public final class TopicReader implements AutoCloseable {
  private final KafkaJournal.Settings settings;
  private final RocksJournal local;
  private final TopicPartition partition;
  private final KafkaConsumer<byte[], byte[]> consumer;

  public TopicReader(KafkaJournal.Settings settings, RocksJournal local) {
    this.settings = settings;
    this.local = local;
    this.partition = new TopicPartition(settings.topic(), 0);
    // No group: the reader assigns itself the partition and keeps its offset beside the copy.
    Properties p = settings.brokers().clientProperties();
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // An offset outside the log (the topic was made anew) must not skip to the end: reading from
    // the start costs time only, as events the copy holds are skipped by sequence number.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(p);
    consumer.assign(List.of(partition));
    consumer.seek(partition, readOffset(settings));
  }

  /**
   * Reads until the end of what is committed now, within {@code timeout}; returns how many events
   * the copy gained.
   */
  public long readToEnd(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long end = consumer.endOffsets(List.of(partition), timeout).get(partition);
    long added = 0;
    while (consumer.position(partition, timeout) < end) {
      if (System.nanoTime() > deadline) {
        throw new JournalException(
            "could not read the journal topic "
                + settings.topic()
                + " to its end (offset "
                + end
                + ") at "
                + settings.brokers()
                + " within "
                + timeout.toSeconds()
                + " s");
      }
      added += poll(Duration.ofMillis(500), batch -> {});
    }
    return added;
  }

  /** Waits up to {@code timeout} for committed events and takes what came. */
  public long poll(Duration timeout, Consumer<List<Event>> progress) {
    List<Event> batch = new ArrayList<>();
    long last = local.lastSeq();
    long next = -1;
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
      Event e = parse(r);
      next = r.offset() + 1;
      if (e.getSeq() <= last) {
        continue; // already in the local copy (its offset file was behind)
      }
      if (e.getSeq() != last + 1) {
        throw new JournalException(
            "the topic "
                + settings.topic()
                + " holds event "
                + e.getSeq()
                + " after event "
                + last
                + " (offset "
                + r.offset()
                + "): it is not this cluster's journal, or it was cut");
      }
      batch.add(e);
      last = e.getSeq();
    }
    if (!batch.isEmpty()) {
      local.append(batch).join();
      progress.accept(batch);
    }
    if (next >= 0) {
      writeOffset(settings, next);
    }
    return batch.size();
  }

  /** The header that marks each record's format; records of releases before it have none. */
  static final String FORMAT_HEADER = "berth-format";

  static final int FORMAT_VERSION = 2;

  /** The headers of every record this release writes. */
  static final List<Header> FORMAT_HEADERS =
      List.of(
          new RecordHeader(
              FORMAT_HEADER, Integer.toString(FORMAT_VERSION).getBytes(StandardCharsets.UTF_8)));

  /** The record's event; refuses one a newer release wrote (its format header says so). */
  static Event parse(ConsumerRecord<byte[], byte[]> r) {
    Header mark = r.headers().lastHeader(FORMAT_HEADER);
    // Unmarked (an earlier release's) or this release's: read on. Only another mark is looked at.
    if (mark != null && !Arrays.equals(mark.value(), FORMAT_HEADERS.get(0).value())) {
      try {
        new FormatVersion("the record at offset " + r.offset() + " of " + r.topic(), FORMAT_VERSION)
            .check(new String(mark.value(), StandardCharsets.UTF_8));
      } catch (IllegalStateException e) {
        throw new JournalException(e.getMessage(), e);
      }
    }
    try {
      return Event.parseFrom(r.value());
    } catch (InvalidProtocolBufferException e) {
      throw new JournalException("the record at offset " + r.offset() + " is not an event", e);
    }
  }

  /** Where the copy's position in the topic is kept; named after the topic it belongs to. */
  private static Path offsetFile(KafkaJournal.Settings s) {
    return s.localDirectory().resolve("offset-" + s.topic());
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }

  /** The topic offset after the last event the local copy holds (0 when unknown). */
  private static long readOffset(KafkaJournal.Settings s) {
    Path file = offsetFile(s);
    try {
      return Files.exists(file) ? Long.parseLong(Files.readString(file).strip()) : 0;
    } catch (IOException | NumberFormatException e) {
      return 0; // reading from the start costs time, not correctness: known events are skipped
    }
  }

  static void writeOffset(KafkaJournal.Settings s, long next) {
    Path file = offsetFile(s);
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, next + "\n");
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      // the next reader starts from the beginning instead
    }
  }
}

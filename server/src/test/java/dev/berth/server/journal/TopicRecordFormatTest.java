package dev.berth.server.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Event;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * Records on the journal's topic carry their format in a header: those of the previous release
 * (none) and of this one are read, one a newer release wrote is refused with the reason.
 */
class TopicRecordFormatTest {
  private static final Event EVENT = Event.newBuilder().setSeq(7).build();

  private static ConsumerRecord<byte[], byte[]> record(String format) {
    RecordHeaders headers = new RecordHeaders();
    if (format != null) {
      headers.add(
          new RecordHeader(TopicReader.FORMAT_HEADER, format.getBytes(StandardCharsets.UTF_8)));
    }
    return new ConsumerRecord<>(
        "berth-t",
        0,
        41,
        0L,
        TimestampType.CREATE_TIME,
        8,
        EVENT.getSerializedSize(),
        new byte[8],
        EVENT.toByteArray(),
        headers,
        Optional.empty());
  }

  @Test
  void recordsWithoutAMarkAndOfThisFormatAreRead() {
    assertEquals(EVENT, TopicReader.parse(record(null)));
    assertEquals(EVENT, TopicReader.parse(record("2")));
    assertEquals(
        "2",
        new String(TopicReader.FORMAT_HEADERS.get(0).value(), StandardCharsets.UTF_8),
        "what this release writes");
  }

  @Test
  void aRecordOfANewerFormatIsRefused() {
    JournalException e = assertThrows(JournalException.class, () -> TopicReader.parse(record("3")));
    assertTrue(
        e.getMessage().startsWith("the record at offset 41 of berth-t is in format 3"),
        e.getMessage());
  }
}

package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobIdsTest {
  private static final String SERVER = "head.cluster.org";

  @Test
  void buildsCanonicalIds() {
    assertEquals("123.head.cluster.org", JobIds.of(123, SERVER));
    assertEquals("123[].head.cluster.org", JobIds.arrayOf(123, SERVER));
    assertEquals("123[7].head.cluster.org", JobIds.subjobOf(123, 7, SERVER));
    assertEquals("0[0].s", JobIds.subjobOf(0, 0, "s"));
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "123, 123.head.cluster.org",
    "' 123 ', 123.head.cluster.org",
    "123.head.cluster.org, 123.head.cluster.org",
    "123.head, 123.head.cluster.org", // a prefix that ends at a dot
    "123.head.cluster, 123.head.cluster.org",
    "123[], 123[].head.cluster.org",
    "123[].head, 123[].head.cluster.org",
    "123[7], 123[7].head.cluster.org",
    "123[7].head, 123[7].head.cluster.org",
    "123[7].head.cluster.org, 123[7].head.cluster.org",
    // not a prefix of this server at a dot: another server's job, kept as typed
    "123.he, 123.he",
    "123.head.cluster.org.uk, 123.head.cluster.org.uk",
    "123.other, 123.other",
    "123.cluster.org, 123.cluster.org",
    "123[4].other.site, 123[4].other.site",
  })
  void canonicalFillsInThisServer(String text, String canonical) {
    assertEquals(canonical, JobIds.canonical(text, SERVER));
  }

  @Test
  void canonicalWithSingleLabelServer() {
    assertEquals("5.mp2", JobIds.canonical("5", "mp2"));
    assertEquals("5.mp2", JobIds.canonical("5.mp2", "mp2"));
    assertEquals("5.mp", JobIds.canonical("5.mp", "mp2"));
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource({
    "''",
    "abc",
    "abc.head",
    "-1",
    "+1",
    "12a",
    "123.",
    "123[",
    "123]",
    "123[x]",
    "123[-1]",
    "123[1-4]",
    "[7].head",
    "123 .head",
    "1 2",
  })
  void rejectsMalformedIdsNamingThem(String text) {
    BadValueException e =
        assertThrows(BadValueException.class, () -> JobIds.canonical(text, SERVER));
    assertEquals(
        "'" + text + "' is not a job id (expected NUMBER[.server] or NUMBER[INDEX][.server])",
        e.getMessage());
  }

  @ParameterizedTest(name = "{0} has number {1}")
  @CsvSource({
    "123.head.cluster.org, 123",
    "123[].head, 123",
    "123[7].head, 123",
    "42, 42",
    "0.s, 0",
    "abc, -1",
    "'', -1",
    "12a.s, -1",
    "99999999999999999999.s, -1", // more digits than a long holds
  })
  void number(String id, long number) {
    assertEquals(number, JobIds.number(id));
  }

  @ParameterizedTest(name = "{0} is on ''{1}''")
  @CsvSource({
    "123.head.cluster.org, head.cluster.org",
    "123[].head.cluster.org, head.cluster.org",
    "123[7].s, s",
    "123, ''",
  })
  void server(String id, String server) {
    assertEquals(server, JobIds.server(id));
  }
}

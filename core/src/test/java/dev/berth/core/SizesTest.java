package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.core.Sizes.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizesTest {
  private static final long K = 1024;
  private static final long M = K * K;
  private static final long G = M * K;
  private static final long T = G * K;
  private static final long P = T * K;

  @ParameterizedTest(name = "{0} is {1} bytes")
  @CsvSource({
    "0, 0",
    "1024, 1024", // a bare number is bytes
    "1b, 1",
    "1B, 1",
    "1k, 1024",
    "1kb, 1024",
    "1KB, 1024",
    "1Kb, 1024",
    "512mb, 536870912",
    "5MB, 5242880", // corpus 15
    "2gb, 2147483648",
    "16gb, 17179869184",
    "188GB, 201863462912", // corpus 05
    "250GB, 268435456000",
    "55000mb, 57671680000",
    "1t, 1099511627776",
    "1tb, 1099511627776",
    "1p, 1125899906842624",
    "1pb, 1125899906842624",
    "1w, 8", // a word is 8 bytes
    "1kw, 8192",
    "2MW, 16777216",
    "' 4gb ', 4294967296",
  })
  void parsesBytes(String text, long bytes) {
    assertEquals(bytes, Sizes.parseBytes(text));
  }

  @Test
  void multipliersArePowersOf1024() {
    assertEquals(K, Sizes.parseBytes("1kb"));
    assertEquals(M, Sizes.parseBytes("1mb"));
    assertEquals(G, Sizes.parseBytes("1gb"));
    assertEquals(T, Sizes.parseBytes("1tb"));
    assertEquals(P, Sizes.parseBytes("1pb"));
  }

  @ParameterizedTest(name = "{0} keeps its unit as {1}")
  @CsvSource({
    "2gb, 2gb",
    "2GB, 2gb",
    "2g, 2gb",
    "5000mb, 5000mb",
    "5000MB, 5000mb",
    "1024, 1024b",
    "1024b, 1024b",
    "1024kb, 1024kb", // parse does not promote to a larger unit
    "0, 0b",
    "3w, 3w",
    "3KW, 3kw",
    "7pb, 7pb",
    "1t, 1tb",
  })
  void canonicalText(String text, String canonical) {
    assertEquals(canonical, Sizes.parse(text).toString());
  }

  @Test
  void parseKeepsNumberShiftAndWords() {
    assertEquals(new Size(5000, 20, false), Sizes.parse("5000MB"));
    assertEquals(new Size(3, 10, true), Sizes.parse("3kw"));
    assertEquals(new Size(1024, 0, false), Sizes.parse("1024"));
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      value = {
        "'' | size '' must start with a number (e.g. 512mb, 4gb, 1024kb)",
        "gb | size 'gb' must start with a number (e.g. 512mb, 4gb, 1024kb)",
        "-1gb | size '-1gb' must start with a number (e.g. 512mb, 4gb, 1024kb)",
        "+1gb | size '+1gb' must start with a number (e.g. 512mb, 4gb, 1024kb)",
        ".5gb | size '.5gb' must start with a number (e.g. 512mb, 4gb, 1024kb)",
        "1.5gb | size '1.5gb' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "4x | size '4x' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "4eb | size '4eb' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "4gbb | size '4gbb' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "4bg | size '4bg' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "4 gb | size '4 gb' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "4gib | size '4gib' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)",
        "99999999999999999999 | size '99999999999999999999' is too large",
      })
  void rejectsBadSizesNamingThem(String text, String message) {
    BadValueException e = assertThrows(BadValueException.class, () -> Sizes.parse(text));
    assertEquals(message, e.getMessage());
  }

  @Test
  void overflowOfTheByteCountIsRejected() {
    // 8192 pb is 2^63 bytes, one more than a long holds; 8191 pb fits.
    assertEquals(8191 * P, Sizes.parseBytes("8191pb"));
    BadValueException e = assertThrows(BadValueException.class, () -> Sizes.parse("8192pb"));
    assertEquals("size 8192pb is too large", e.getMessage());
    assertThrows(BadValueException.class, () -> Sizes.parse("1024pw")); // 2^60 words × 8
    assertThrows(BadValueException.class, () -> Sizes.parse("9223372036854775807k"));
  }

  @Test
  void sizeRecordChecksOverflowToo() {
    BadValueException e =
        assertThrows(BadValueException.class, () -> new Size(Long.MAX_VALUE, 0, true).bytes());
    assertEquals("size 9223372036854775807w is too large", e.getMessage());
    assertEquals(Long.MAX_VALUE, new Size(Long.MAX_VALUE, 0, false).bytes());
  }

  @ParameterizedTest(name = "{0} bytes format as {1}")
  @CsvSource({
    "0, 0b",
    "-1, 0b",
    "1, 1b",
    "1023, 1023b",
    "1024, 1kb",
    "1536, 1536b",
    "1048576, 1mb",
    "1572864, 1536kb",
    "2147483648, 2gb",
    "5242880000, 5000mb",
    "1099511627776, 1tb",
    "1125899906842624, 1pb",
    "1152921504606846976, 1024pb", // 2^60: p is the largest unit
    "9223372036854775807, 9223372036854775807b",
  })
  void formatUsesLargestExactUnit(long bytes, String text) {
    assertEquals(text, Sizes.format(bytes));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"2gb", "5000mb", "1536b", "1kb", "1024pb", "3tb"})
  void formatThenParseRoundTrips(String text) {
    long bytes = Sizes.parseBytes(text);
    assertEquals(bytes, Sizes.parseBytes(Sizes.format(bytes)));
  }

  @ParameterizedTest(name = "{0} bytes are {1}")
  @CsvSource({
    "0, 0kb",
    "1, 1kb",
    "1023, 1kb",
    "1024, 1kb",
    "1025, 2kb",
    "12641280, 12345kb",
    "2147483648, 2097152kb",
  })
  void formatKbRoundsUpToWholeKilobytes(long bytes, String text) {
    assertEquals(text, Sizes.formatKb(bytes));
  }

  @ParameterizedTest(name = "{0} bytes read {1}")
  @CsvSource({
    "4096, 4 KiB",
    "1572864, 1.5 MiB",
    "1048577, 1.0 MiB",
    "1536, 1.5 KiB",
    "100, 100 bytes",
  })
  void readableSizesUseBinaryUnits(long bytes, String text) {
    assertEquals(text, Sizes.readable(bytes));
  }
}

package dev.berth.daemon.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {
  @Test
  void readsTheValuesImageDocumentsUse() {
    Map<String, Object> m =
        Json.object(
            Json.parse(
                " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\","
                    + " \"o\": {}, \"e\": []}\n"),
            "m");
    assertEquals(
        Arrays.asList(new BigDecimal("1"), new BigDecimal("-2.5e3"), true, false, null),
        m.get("a"));
    assertEquals("q\"\\/\né\uD83D\uDE00", m.get("s"));
    assertEquals(Map.of(), m.get("o"));
    assertEquals(List.of(), m.get("e"));
    assertEquals(1L, Json.number(Json.array(m.get("a"), "a").get(0), "n"));
    assertNull(Json.array(m.get("a"), "a").get(4));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @ValueSource(
      strings = {
        "",
        "{",
        "{\"a\":1,}",
        "[1,]",
        "{\"a\":1 \"b\":2}",
        "{a:1}",
        "'x'",
        "01",
        "1.",
        "\"tab\there\"",
        "\"\\x\"",
        "\"\\u12\"",
        "tru",
        "{} {}",
        "1e99999999999",
        "{\"a\":1,\"a\":2}"
      })
  void refusesWhatIsNotStrictJson(String text) {
    assertThrows(IllegalArgumentException.class, () -> Json.parse(text));
  }

  @Test
  void boundsNesting() {
    String deep = "[".repeat(65) + "]".repeat(65);
    assertEquals(
        "not valid JSON at character 64: nested more than 64 deep",
        assertThrows(IllegalArgumentException.class, () -> Json.parse(deep)).getMessage());
    Json.parse("[".repeat(63) + "[1]" + "]".repeat(63));
  }

  @Test
  void namesWhatHasTheWrongType() {
    assertEquals(
        "the layers is not a JSON array",
        assertThrows(IllegalArgumentException.class, () -> Json.array("x", "the layers"))
            .getMessage());
    assertEquals(
        "size is not a whole number: 1.5",
        assertThrows(IllegalArgumentException.class, () -> Json.number(Json.parse("1.5"), "size"))
            .getMessage());
  }
}

package dev.berth.tools.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    assertEquals("\"a\\\"b\"", JsonWriter.quote("a\"b"));
    assertEquals("\"C:\\\\dir\"", JsonWriter.quote("C:\\dir"));
    assertEquals("\"1\\n2\\t3\\r4\\b5\\f6\"", JsonWriter.quote("1\n2\t3\r4\b5\f6"));
    assertEquals("\"\\u0001\\u001f\\u007f\"", JsonWriter.quote("\u0001\u001f\u007f"));
    assertEquals("\"\\u2028\\u2029\"", JsonWriter.quote("\u2028\u2029"));
  }

  @Test
  void leavesOtherCharactersAlone() {
    assertEquals("\"héllo wörld /x ✓ 'q'\"", JsonWriter.quote("héllo wörld /x ✓ 'q'"));
  }

  @Test
  void laysOutLikeOpenPbs() {
    String json =
        new JsonWriter()
            .beginObject()
            .field("timestamp", 42)
            .beginObject("Jobs")
            .beginObject("1.srv")
            .field("Job_Name", "STDIN")
            .beginArray("jobs")
            .value("a")
            .value("b")
            .endArray()
            .endObject()
            .endObject()
            .beginObject("empty")
            .endObject()
            .endObject()
            .toString();
    assertEquals(
        "{\n"
            + "    \"timestamp\":42,\n"
            + "    \"Jobs\":{\n"
            + "        \"1.srv\":{\n"
            + "            \"Job_Name\":\"STDIN\",\n"
            + "            \"jobs\":[\n"
            + "                \"a\",\n"
            + "                \"b\"\n"
            + "            ]\n"
            + "        }\n"
            + "    },\n"
            + "    \"empty\":{}\n"
            + "}\n",
        json);
  }

  @Test
  void objectsInsideArrays() {
    String json =
        new JsonWriter()
            .beginObject()
            .beginArray("events")
            .beginObject()
            .field("seq", 1)
            .endObject()
            .endArray()
            .endObject()
            .toString();
    assertEquals(
        "{\n    \"events\":[\n        {\n            \"seq\":1\n        }\n    ]\n}\n", json);
  }

  @Test
  void refusesAnUnfinishedDocument() {
    JsonWriter json = new JsonWriter().beginObject();
    assertThrows(IllegalStateException.class, json::toString);
  }
}

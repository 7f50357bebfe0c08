package dev.berth.tools.format;

import dev.berth.core.ControlCharacters;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small JSON writer laid out like OpenPBS's {@code -F json}: four blanks of indent per level,
 * {@code "key":value} without a blank, one member per line, empty containers as {@code {}}. Written
 * here instead of pulling a JSON library into a command that must start fast. Every control
 * character ({@link ControlCharacters}, C1 and bidi overrides included) is written as a JSON
 * escape, so the document is valid JSON and safe to print on a terminal.
 */
public final class JsonWriter {
  private static final String INDENT = "    ";

  private final StringBuilder out = new StringBuilder();

  /** For each open container: whether it has a member yet. */
  private final Deque<boolean[]> open = new ArrayDeque<>();

  public JsonWriter beginObject() {
    member();
    out.append('{');
    open.push(new boolean[1]);
    return this;
  }

  public JsonWriter beginObject(String key) {
    key(key);
    out.append('{');
    open.push(new boolean[1]);
    return this;
  }

  public JsonWriter endObject() {
    return close('}');
  }

  public JsonWriter beginArray(String key) {
    key(key);
    out.append('[');
    open.push(new boolean[1]);
    return this;
  }

  public JsonWriter endArray() {
    return close(']');
  }

  public JsonWriter field(String key, String value) {
    key(key);
    quote(out, value);
    return this;
  }

  public JsonWriter field(String key, long value) {
    key(key);
    out.append(value);
    return this;
  }

  /** A finite number, with up to six decimals. */
  public JsonWriter field(String key, double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException(key + " is not a finite number: " + value);
    }
    key(key);
    out.append(
        new BigDecimal(value)
            .setScale(6, RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString());
    return this;
  }

  /** A string element of the enclosing array. */
  public JsonWriter value(String value) {
    member();
    quote(out, value);
    return this;
  }

  /** The document, ending with a newline. */
  @Override
  public String toString() {
    if (!open.isEmpty()) {
      throw new IllegalStateException("JSON document has " + open.size() + " unclosed containers");
    }
    return out + "\n";
  }

  /** {@code value} as a JSON string literal. */
  public static String quote(String value) {
    StringBuilder sb = new StringBuilder(value.length() + 2);
    quote(sb, value);
    return sb.toString();
  }

  private void key(String key) {
    member();
    quote(out, key);
    out.append(':');
  }

  private void member() {
    boolean[] current = open.peek();
    if (current == null) {
      return;
    }
    if (current[0]) {
      out.append(',');
    }
    current[0] = true;
    out.append('\n');
    out.append(INDENT.repeat(open.size()));
  }

  private JsonWriter close(char bracket) {
    boolean[] closed = open.pop();
    if (closed[0]) {
      out.append('\n').append(INDENT.repeat(open.size()));
    }
    out.append(bracket);
    return this;
  }

  private static void quote(StringBuilder sb, String value) {
    sb.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        case '\b':
          sb.append("\\b");
          break;
        case '\f':
          sb.append("\\f");
          break;
        default:
          if (ControlCharacters.is(c)) {
            String hex = Integer.toHexString(c);
            sb.append("\\u").append("0000", hex.length(), 4).append(hex);
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }
}

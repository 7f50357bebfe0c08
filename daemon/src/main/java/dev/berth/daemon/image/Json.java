package dev.berth.daemon.image;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the small documents an image carries (OCI index and manifests, image
 * configs, docker-save's manifest.json): objects become {@code Map<String, Object>}, arrays {@code
 * List<Object>}, numbers {@link BigDecimal}, and strings, booleans and null themselves. The daemon
 * has no JSON library on its compile path, and these documents come from anywhere, so the reader
 * bounds nesting and refuses duplicate keys (which two readers could resolve differently).
 */
final class Json {
  private static final int MAX_DEPTH = 64;

  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  /**
   * The value {@code text} holds.
   *
   * @throws IllegalArgumentException saying where and why it is not JSON
   */
  static Object parse(String text) {
    Json json = new Json(text);
    Object value = json.value(0);
    json.skipBlanks();
    if (json.at != text.length()) {
      throw json.error("text after the value");
    }
    return value;
  }

  /** {@code value} as an object, or an error naming {@code what} it should have been. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(Object value, String what) {
    if (value instanceof Map<?, ?> map) {
      return (Map<String, Object>) map;
    }
    throw new IllegalArgumentException(what + " is not a JSON object");
  }

  @SuppressWarnings("unchecked")
  static List<Object> array(Object value, String what) {
    if (value instanceof List<?> list) {
      return (List<Object>) list;
    }
    throw new IllegalArgumentException(what + " is not a JSON array");
  }

  static String string(Object value, String what) {
    if (value instanceof String s) {
      return s;
    }
    throw new IllegalArgumentException(what + " is not a JSON string");
  }

  /** A whole number that fits a long. */
  static long number(Object value, String what) {
    if (value instanceof BigDecimal n) {
      try {
        return n.longValueExact();
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(what + " is not a whole number: " + n, e);
      }
    }
    throw new IllegalArgumentException(what + " is not a JSON number");
  }

  private Object value(int depth) {
    skipBlanks();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    if ((c == '{' || c == '[') && depth >= MAX_DEPTH) {
      throw error("nested more than " + MAX_DEPTH + " deep");
    }
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> word("true", Boolean.TRUE);
      case 'f' -> word("false", Boolean.FALSE);
      case 'n' -> word("null", null);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw error("unexpected '" + c + "'");
      }
    };
  }

  private Map<String, Object> object(int depth) {
    Map<String, Object> members = new LinkedHashMap<>();
    at++; // {
    skipBlanks();
    if (peek() == '}') {
      at++;
      return members;
    }
    while (true) {
      skipBlanks();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      String key = string();
      skipBlanks();
      expect(':');
      Object value = value(depth + 1);
      if (members.containsKey(key)) {
        throw error("duplicate member \"" + key + "\"");
      }
      members.put(key, value);
      skipBlanks();
      if (peek() == ',') {
        at++;
      } else {
        expect('}');
        return members;
      }
    }
  }

  private List<Object> array(int depth) {
    List<Object> elements = new ArrayList<>();
    at++; // [
    skipBlanks();
    if (peek() == ']') {
      at++;
      return elements;
    }
    while (true) {
      elements.add(value(depth + 1));
      skipBlanks();
      if (peek() == ',') {
        at++;
      } else {
        expect(']');
        return elements;
      }
    }
  }

  private String string() {
    at++; // "
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        throw error("control character in a string");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (at >= text.length()) {
        throw error("unterminated string");
      }
      char e = text.charAt(at++);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw error("short \\u escape");
          }
          try {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException x) {
            throw error("bad \\u escape");
          }
          at += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private BigDecimal number() {
    int start = at;
    if (peek() == '-') {
      at++;
    }
    if (peek() == '0') {
      at++;
    } else {
      digits();
    }
    if (peek() == '.') {
      at++;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      at++;
      if (peek() == '+' || peek() == '-') {
        at++;
      }
      digits();
    }
    try {
      return new BigDecimal(text.substring(start, at));
    } catch (NumberFormatException e) {
      throw error("number out of range");
    }
  }

  private void digits() {
    int start = at;
    while (peek() >= '0' && peek() <= '9') {
      at++;
    }
    if (at == start) {
      throw error("expected a digit");
    }
  }

  private Object word(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("unexpected '" + text.charAt(at) + "'");
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  /** The next character, or NUL at the end (NUL cannot stand unescaped in valid JSON). */
  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private void skipBlanks() {
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      at++;
    }
  }

  private IllegalArgumentException error(String why) {
    return new IllegalArgumentException("not valid JSON at character " + at + ": " + why);
  }
}

package dev.berth.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict, minimal JSON reader for checking the commands' {@code -F json} output without a JSON
 * library: objects become {@link LinkedHashMap}s (in document order), arrays {@link List}s,
 * integers {@link Long}, other numbers {@link Double}, and {@code true}/{@code false}/{@code null}
 * themselves. Anything that is not one complete JSON value is refused, and so is an object that
 * names the same key twice (RFC 8259 says names SHOULD be unique; readers then disagree on which
 * value wins).
 */
final class MiniJson {
  private final String text;
  private int at;

  private MiniJson(String text) {
    this.text = text;
  }

  /** Parses {@code text}; throws {@link IllegalArgumentException} saying where it is not JSON. */
  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object value = p.value();
    p.blanks();
    if (p.at != text.length()) {
      throw p.error("text after the JSON value");
    }
    return value;
  }

  /** Parses {@code text}, which must be a JSON object. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(String text) {
    Object value = parse(text);
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException("not a JSON object: " + text);
    }
    return (Map<String, Object>) value;
  }

  /** The object under {@code key} of {@code map}, failing if it is missing or not an object. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> child(Map<String, Object> map, String key) {
    Object value = map.get(key);
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException("no object '" + key + "' in " + map.keySet());
    }
    return (Map<String, Object>) value;
  }

  private Object value() {
    blanks();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    return switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw error("unexpected character '" + c + "'");
      }
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    at++;
    blanks();
    if (peek() == '}') {
      at++;
      return map;
    }
    while (true) {
      blanks();
      if (peek() != '"') {
        throw error("expected a string key");
      }
      String key = string();
      blanks();
      expect(':');
      Object value = value();
      if (map.containsKey(key)) {
        throw error("duplicate key '" + key + "'");
      }
      map.put(key, value);
      blanks();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    at++;
    blanks();
    if (peek() == ']') {
      at++;
      return list;
    }
    while (true) {
      list.add(value());
      blanks();
      char c = next();
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return sb.toString();
      }
      if (c < 0x20) {
        throw error("unescaped control character in a string");
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw error("short \\u escape");
          }
          sb.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
        }
        default -> throw error("bad escape '\\" + e + "'");
      }
    }
  }

  private Object number() {
    int start = at;
    if (peek() == '-') {
      at++;
    }
    while (at < text.length() && "0123456789.eE+-".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    String n = text.substring(start, at);
    if (!n.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
      throw error("bad number '" + n + "'");
    }
    return n.matches("-?[0-9]+") ? (Object) Long.parseLong(n) : (Object) Double.parseDouble(n);
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("expected " + word);
    }
    at += word.length();
    return value;
  }

  private void blanks() {
    while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private char next() {
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(at++);
  }

  private void expect(char c) {
    if (next() != c) {
      at--;
      throw error("expected '" + c + "'");
    }
  }

  private IllegalArgumentException error(String what) {
    int from = Math.max(0, at - 40);
    int to = Math.min(text.length(), at + 40);
    return new IllegalArgumentException(
        "not JSON at offset " + at + ": " + what + " near «" + text.substring(from, to) + "»");
  }
}

package dev.berth.tools.format;

import dev.berth.core.ControlCharacters;

/**
 * The XML of Torque's {@code qstat -x} and {@code pbsnodes -x} (its MXML library): elements only,
 * no whitespace between them, and {@code & < > " '} escaped in text. Control characters are written
 * as Berth's text escapes ({@code \n}, {@code \x1b}; {@link ControlCharacters}): most are not
 * allowed in XML 1.0 at all, not even as character references, and a raw newline or escape would
 * reach the terminal of whoever reads the one-line document.
 */
public final class Xml {
  private final StringBuilder out = new StringBuilder();

  public Xml open(String name) {
    out.append('<').append(name).append('>');
    return this;
  }

  public Xml close(String name) {
    out.append("</").append(name).append('>');
    return this;
  }

  public Xml element(String name, String text) {
    open(name);
    escape(out, text);
    return close(name);
  }

  @Override
  public String toString() {
    return out.toString();
  }

  public static String escape(String text) {
    StringBuilder sb = new StringBuilder(text.length());
    escape(sb, text);
    return sb.toString();
  }

  private static void escape(StringBuilder sb, String raw) {
    String text = ControlCharacters.escape(raw);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<':
          sb.append("&lt;");
          break;
        case '>':
          sb.append("&gt;");
          break;
        case '&':
          sb.append("&amp;");
          break;
        case '"':
          sb.append("&quot;");
          break;
        case '\'':
          sb.append("&apos;");
          break;
        default:
          sb.append(c);
      }
    }
  }
}

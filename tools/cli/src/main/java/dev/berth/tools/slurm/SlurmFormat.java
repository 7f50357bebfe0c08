package dev.berth.tools.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code -o} formats of Slurm's squeue and sprio: text with fields {@code %[.][size]type}, a
 * size padding the field to that width (and cutting what is longer, its start kept), a {@code .}
 * putting it on the right, as Slurm 22.05 prints them; and squeue's {@code -O} formats, the same
 * fields by name. Each command has its own letters; any other is refused by name.
 *
 * @param <T> what a line shows (a job)
 */
public final class SlurmFormat<T> {
  /** What a field shows: its header and its value of a line's subject. */
  public record Field<T>(String header, Function<T, String> value) {}

  /**
   * A field's {@code [.][size]} read from {@code at}: on the right, its width (0 for none; of a
   * longer size its first four digits, so that no field pads a line out of bounds), and where what
   * follows starts.
   */
  private record Size(boolean right, int width, int end) {
    static Size at(String text, int at) {
      boolean right = at < text.length() && text.charAt(at) == '.';
      int from = right ? at + 1 : at;
      int end = from;
      while (end < text.length() && Character.isDigit(text.charAt(end))) {
        end++;
      }
      int width = end == from ? 0 : Integer.parseInt(text.substring(from, Math.min(end, from + 4)));
      return new Size(right, width, end);
    }
  }

  /** A piece of a format: literal text, or a field with its width and side. */
  private record Piece<T>(String text, Field<T> field, int width, boolean right) {}

  private final List<Piece<T>> pieces;

  private SlurmFormat(List<Piece<T>> pieces) {
    this.pieces = pieces;
  }

  /**
   * Reads {@code format}.
   *
   * @param program the command, for the refusal of a letter it does not show
   * @throws IllegalArgumentException naming a field the command does not show
   */
  public static <T> SlurmFormat<T> parse(
      String format, Map<Character, Field<T>> fields, String program) {
    List<Piece<T>> pieces = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    int i = 0;
    while (i < format.length()) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 >= format.length()) {
        text.append(c);
        i++;
        continue;
      }
      Size size = Size.at(format, i + 1);
      int at = size.end();
      if (at >= format.length()) {
        throw new IllegalArgumentException("a format that ends in a field without its letter");
      }
      char letter = format.charAt(at);
      Field<T> field = fields.get(letter);
      if (field == null) {
        throw new IllegalArgumentException(
            "the field %"
                + letter
                + " is not supported by Berth's "
                + program
                + " yet (docs/slurm.md lists the fields it shows)");
      }
      if (text.length() > 0) {
        pieces.add(new Piece<>(text.toString(), null, 0, false));
        text.setLength(0);
      }
      pieces.add(new Piece<>(null, field, size.width(), size.right() && size.width() > 0));
      i = at + 1;
    }
    if (text.length() > 0) {
      pieces.add(new Piece<>(text.toString(), null, 0, false));
    }
    return new SlurmFormat<>(List.copyOf(pieces));
  }

  /**
   * Reads a {@code -O} format: a comma list of {@code name[:[.][size][suffix]]}, names in any case,
   * each field 20 wide and on the left unless its size says otherwise (a size of none or 0 neither
   * pads nor cuts; a size is read as {@code -o}'s), followed by its suffix; nothing between fields,
   * as Slurm 22.05's squeue prints them.
   *
   * @param names the command's field names (lower case), as the letters of its {@code -o} fields
   * @param known the names of the command's other fields (lower case), refused as not shown yet
   * @throws IllegalArgumentException naming a field that is not shown, in Slurm's words for a name
   *     the command does not have
   */
  public static <T> SlurmFormat<T> parseNamed(
      String format,
      Map<String, Character> names,
      java.util.Set<String> known,
      Map<Character, Field<T>> fields,
      String program) {
    List<Piece<T>> pieces = new ArrayList<>();
    for (String token : format.split(",")) {
      if (token.isEmpty()) {
        continue;
      }
      int colon = token.indexOf(':');
      String name = (colon < 0 ? token : token.substring(0, colon)).toLowerCase(Locale.ROOT);
      Size size = colon < 0 ? new Size(false, 20, token.length()) : Size.at(token, colon + 1);
      String suffix = token.substring(size.end());
      Character letter = names.get(name);
      if (letter == null) {
        throw new IllegalArgumentException(
            known.contains(name)
                ? "the field "
                    + name
                    + " is not supported by Berth's "
                    + program
                    + " yet (docs/slurm.md lists the fields it shows)"
                : "Invalid job format specification: " + name);
      }
      pieces.add(
          new Piece<>(null, fields.get(letter), size.width(), size.right() && size.width() > 0));
      if (!suffix.isEmpty()) {
        pieces.add(new Piece<>(suffix, null, 0, false));
      }
    }
    return new SlurmFormat<>(List.copyOf(pieces));
  }

  public String header() {
    return line(Field::header);
  }

  public String row(T subject) {
    return line(f -> f.value().apply(subject));
  }

  private String line(Function<Field<T>, String> value) {
    StringBuilder out = new StringBuilder();
    for (Piece<T> p : pieces) {
      if (p.field() == null) {
        out.append(p.text());
        continue;
      }
      String v = value.apply(p.field());
      if (p.width() > 0 && v.length() > p.width()) {
        v = v.substring(0, p.width());
      }
      if (p.width() > v.length()) {
        String pad = " ".repeat(p.width() - v.length());
        v = p.right() ? pad + v : v + pad;
      }
      out.append(v);
    }
    return out.toString();
  }
}

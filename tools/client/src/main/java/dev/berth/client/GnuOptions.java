package dev.berth.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A command line read as glibc's getopt_long reads Slurm's commands': long options by their name or
 * an unambiguous prefix of it ({@code --opt=value}, or {@code --opt value} where a value is
 * required, only {@code --opt=value} where it is optional), short ones alone or run together
 * ({@code -Hn2}), and the first word that is no option ends them (the rest are operands). Errors
 * are getopt's words, with the program's hint to ask for help.
 */
public final class GnuOptions {
  /** Whether an option takes a value. */
  public enum Arg {
    NONE,
    REQUIRED,
    OPTIONAL
  }

  /** One option: its long name, its letter (0: none), its value. */
  public record Option(String name, char letter, Arg arg) {}

  /** An option as given, with its value ("" when it takes none). */
  public record Given(Option option, String value) {}

  /** The options in order, and the words after them. */
  public record Parsed(List<Given> options, List<String> operands) {}

  /** What getopt says of a command line it cannot read, and the hint after it. */
  public static final class UsageException extends Exception {
    public UsageException(String lines) {
      super(lines);
    }
  }

  private final String program;
  private final Map<String, Option> byName = new TreeMap<>();
  private final Map<Character, Option> byLetter = new HashMap<>();

  /** The options of {@code program}. */
  public GnuOptions(String program, List<Option> options) {
    this.program = program;
    for (Option o : options) {
      byName.put(o.name(), o);
      if (o.letter() != 0) {
        byLetter.put(o.letter(), o);
      }
    }
  }

  /** The option of this long name, or null. */
  public Option named(String name) {
    return byName.get(name);
  }

  /** Reads {@code words}: options first, then from the first other word on the operands. */
  public Parsed parse(List<String> words) throws UsageException {
    List<Given> given = new ArrayList<>();
    int i = 0;
    while (i < words.size()) {
      String w = words.get(i);
      if (w.equals("--")) {
        i++;
        break;
      }
      if (w.startsWith("--")) {
        i = longOption(words, i, given);
      } else if (w.startsWith("-") && w.length() > 1) {
        i = shortOptions(words, i, given);
      } else {
        break;
      }
    }
    return new Parsed(given, List.copyOf(words.subList(i, words.size())));
  }

  private int longOption(List<String> words, int i, List<Given> given) throws UsageException {
    String w = words.get(i);
    int eq = w.indexOf('=');
    String name = eq < 0 ? w.substring(2) : w.substring(2, eq);
    Option o = byName.get(name);
    if (o == null) {
      List<Option> prefixed =
          byName.values().stream().filter(x -> x.name().startsWith(name)).toList();
      if (prefixed.size() > 1 && !name.isEmpty()) {
        StringBuilder line =
            new StringBuilder(program + ": option '--" + name + "' is ambiguous; possibilities:");
        prefixed.forEach(x -> line.append(" '--").append(x.name()).append('\''));
        throw usage(line.toString());
      }
      if (prefixed.size() != 1 || name.isEmpty()) {
        throw usage(program + ": unrecognized option '" + w + "'");
      }
      o = prefixed.get(0);
    }
    if (eq >= 0) {
      if (o.arg() == Arg.NONE) {
        throw usage(program + ": option '--" + o.name() + "' doesn't allow an argument");
      }
      given.add(new Given(o, w.substring(eq + 1)));
      return i + 1;
    }
    if (o.arg() == Arg.REQUIRED) {
      if (i + 1 >= words.size()) {
        throw usage(program + ": option '--" + o.name() + "' requires an argument");
      }
      given.add(new Given(o, words.get(i + 1)));
      return i + 2;
    }
    given.add(new Given(o, ""));
    return i + 1;
  }

  private int shortOptions(List<String> words, int i, List<Given> given) throws UsageException {
    String w = words.get(i);
    for (int at = 1; at < w.length(); at++) {
      char c = w.charAt(at);
      Option o = byLetter.get(c);
      if (o == null) {
        throw usage(program + ": invalid option -- '" + c + "'");
      }
      if (o.arg() == Arg.NONE || o.arg() == Arg.OPTIONAL && at + 1 == w.length()) {
        given.add(new Given(o, ""));
        continue;
      }
      if (at + 1 < w.length()) {
        given.add(new Given(o, w.substring(at + 1)));
        return i + 1;
      }
      if (i + 1 >= words.size()) {
        throw usage(program + ": option requires an argument -- '" + c + "'");
      }
      given.add(new Given(o, words.get(i + 1)));
      return i + 2;
    }
    return i + 1;
  }

  /** getopt's complaint and Slurm's hint. */
  private UsageException usage(String line) {
    return new UsageException(line + "\nTry \"" + program + " --help\" for more information");
  }
}

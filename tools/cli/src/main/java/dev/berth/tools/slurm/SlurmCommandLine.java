package dev.berth.tools.slurm;

import dev.berth.client.GnuOptions;
import dev.berth.client.Invocation;
import dev.berth.core.BerthVersion;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The command line of one of Berth's Slurm commands, read as Slurm's getopt_long reads it ({@link
 * GnuOptions}): what it cannot read, and the options Berth does not honour yet, are refused with
 * their names (exit 1); {@code --version} and {@code -V} print Berth's version, {@code --usage} and
 * {@code --help} the command's usage line (exit 0).
 */
public final class SlurmCommandLine {
  /**
   * What was asked: each option given by its long name, with its last value; the operands; and,
   * when the command has already answered, its exit status.
   */
  public record Read(Map<String, String> options, List<String> operands, OptionalInt done) {}

  private SlurmCommandLine() {}

  /**
   * @param honoured the long names of the options the command honours
   * @param aliases long names that stand for another ({@code jobname} for {@code name})
   */
  public static Read read(
      Invocation inv,
      List<GnuOptions.Option> options,
      Set<String> honoured,
      Map<String, String> aliases,
      String usage) {
    String program = inv.program();
    Map<String, String> given = new LinkedHashMap<>();
    GnuOptions.Parsed parsed;
    try {
      parsed = new GnuOptions(program, options).parse(inv.args());
    } catch (GnuOptions.UsageException e) {
      inv.err().println(e.getMessage());
      return done(1);
    }
    for (GnuOptions.Given g : parsed.options()) {
      String name = g.option().name();
      if (!honoured.contains(name)) {
        inv.err()
            .println(
                program
                    + ": error: --"
                    + name
                    + " is not supported by Berth's "
                    + program
                    + " yet (docs/slurm.md lists what is)");
        return done(1);
      }
      given.put(aliases.getOrDefault(name, name), g.value());
    }
    if (given.containsKey("version")) {
      inv.out().println("berth " + BerthVersion.NUMBER);
      return done(0);
    }
    if (given.containsKey("usage") || given.containsKey("help")) {
      inv.out().println(usage);
      return done(0);
    }
    return new Read(given, parsed.operands(), OptionalInt.empty());
  }

  /** The caller's user name, for {@code --me} and the commands' own-jobs defaults. */
  public static String caller(Invocation inv) {
    return inv.env().getOrDefault("USER", inv.env().getOrDefault("LOGNAME", ""));
  }

  /** A comma-separated option value as its items; none for an absent or empty value. */
  public static List<String> list(String value) {
    return value == null || value.isEmpty() ? List.of() : List.of(value.split(","));
  }

  /** Whether a filter's comma-separated {@code list} (null: none given) takes {@code value}. */
  public static boolean admits(String list, String value) {
    return list == null || List.of(list.split(",")).contains(value);
  }

  /**
   * Whether the server refused the request: then its reason has been printed as the command's error
   * ({@code squeue: error: ...}).
   */
  public static boolean refused(Invocation inv, Response response) {
    if (!response.hasError()) {
      return false;
    }
    inv.err()
        .println(
            inv.program()
                + ": error: "
                + ControlCharacters.escape(response.getError().getMessage()));
    return true;
  }

  private static Read done(int status) {
    return new Read(Map.of(), List.of(), OptionalInt.of(status));
  }
}

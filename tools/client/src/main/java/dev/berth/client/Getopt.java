package dev.berth.client;

import java.util.ArrayList;
import java.util.List;

/**
 * GNU getopt(3) as Torque's commands use it: short options from an optstring ({@code "a:hN:"}, a
 * colon after a letter means it takes an argument), clustered flags ({@code -an1}), attached or
 * separate arguments ({@code -lnodes=1} or {@code -l nodes=1}), an argument taken even when it
 * starts with {@code -} ({@code -p -1024}), operands permuted to the end unless the optstring
 * starts with {@code +}, and {@code --} ending the options. A {@code -:} in the optstring makes
 * {@code --word} an option {@code '-'} with argument {@code word}, as qsub's {@code --version}.
 *
 * <p>Berth's CLIs and the qsub directive parser share this so that a {@code #PBS} line and a
 * command line are read by exactly the same rules, which is what Torque users rely on.
 */
public final class Getopt {
  private Getopt() {}

  public record Option(char name, String value) {
    public boolean is(char c) {
      return name == c;
    }
  }

  public record Result(List<Option> options, List<String> operands) {}

  /** A usage error; the message reads like getopt's: {@code invalid option -- 'x'}. */
  public static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
      super(message);
    }
  }

  public static Result parse(String optstring, List<String> args) throws UsageException {
    boolean stopAtOperand = optstring.startsWith("+");
    String spec = stopAtOperand ? optstring.substring(1) : optstring;
    List<Option> options = new ArrayList<>();
    List<String> operands = new ArrayList<>();
    int i = 0;
    while (i < args.size()) {
      String arg = args.get(i++);
      if (arg.equals("--")) {
        operands.addAll(args.subList(i, args.size()));
        break;
      }
      if (arg.startsWith("--") && takesArgument(spec, '-')) {
        options.add(new Option('-', arg.substring(2)));
        continue;
      }
      if (!arg.startsWith("-") || arg.length() == 1) {
        operands.add(arg);
        if (stopAtOperand) {
          operands.addAll(args.subList(i, args.size()));
          break;
        }
        continue;
      }
      for (int k = 1; k < arg.length(); k++) {
        char c = arg.charAt(k);
        int at = spec.indexOf(c);
        if (c == ':' || c == '+' || at < 0) {
          throw new UsageException("invalid option -- '" + c + "'");
        }
        if (!takesArgument(spec, c)) {
          options.add(new Option(c, null));
          continue;
        }
        if (k + 1 < arg.length()) {
          options.add(new Option(c, arg.substring(k + 1)));
        } else if (i < args.size()) {
          options.add(new Option(c, args.get(i++)));
        } else {
          throw new UsageException("option requires an argument -- '" + c + "'");
        }
        break;
      }
    }
    return new Result(List.copyOf(options), List.copyOf(operands));
  }

  private static boolean takesArgument(String spec, char c) {
    int at = spec.indexOf(c);
    return at >= 0 && at + 1 < spec.length() && spec.charAt(at + 1) == ':';
  }
}

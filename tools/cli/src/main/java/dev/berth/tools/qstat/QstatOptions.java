package dev.berth.tools.qstat;

import dev.berth.client.Getopt;
import dev.berth.tools.cli.VersionRequested;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * qstat's command line, read with Torque 6's flags and its rules about which ones go together.
 *
 * @param mode what is shown: jobs, queues ({@code -Q}/{@code -q}) or the server ({@code -B})
 * @param full {@code -f}
 * @param alternate the alternate job listing ({@code -a -i -r -n -s -u -G -M}, not with {@code -f})
 * @param altQueues {@code -q}
 * @param style what alternate rows add: {@code -n}, {@code -1}, {@code -s}, {@code -G}/{@code -M},
 *     and {@code -T} (estimated start in place of elapsed time, as OpenPBS)
 * @param states job states listed (letters) for {@code -i} (E H Q T W) or {@code -r} (R S); empty =
 *     all
 * @param users owners listed ({@code -u}); empty = all
 * @param noCompleted {@code -c} or {@code PBS_QSTAT_NO_COMPLETE}
 * @param subjobs {@code -t}
 * @param output text, XML ({@code -x}) or JSON ({@code -F json})
 * @param history {@code -H}: finished jobs from the server's accounting files, as PBS Pro's
 */
public record QstatOptions(
    Mode mode,
    boolean full,
    boolean alternate,
    boolean altQueues,
    AltJobTable.Style style,
    Set<String> states,
    Set<String> users,
    boolean noCompleted,
    boolean subjobs,
    Output output,
    List<String> operands,
    boolean history) {

  public enum Mode {
    JOBS,
    QUEUES,
    SERVER
  }

  public enum Output {
    TEXT,
    XML,
    JSON
  }

  static final String OPTSTRING = "1aBcCeE:fF:GHilMnqQrsTtu:x-:";
  static final String CONFLICT = "qstat: conflicting options.";

  /** Parses {@code args}; {@code env} supplies {@code PBS_QSTAT_NO_COMPLETE}. */
  static QstatOptions parse(List<String> args, Map<String, String> env)
      throws Getopt.UsageException, VersionRequested {
    Getopt.Result parsed = Getopt.parse(OPTSTRING, args);
    Flags f = new Flags();
    for (Getopt.Option option : parsed.options()) {
      f.apply(option);
    }
    f.check();
    return f.build(parsed.operands(), env.containsKey("PBS_QSTAT_NO_COMPLETE"));
  }

  /** The flags as given, before they are checked against each other. */
  private static final class Flags {
    /** One field per flag letter; {@code bigX} is {@code -X}, {@code one} is {@code -1}. */
    boolean a, bigB, c, f, bigG, bigH, i, bigM, n, one, q, bigQ, r, s, bigT, t, x;

    String json;
    final Set<String> users = new LinkedHashSet<>();

    void apply(Getopt.Option option) throws Getopt.UsageException, VersionRequested {
      switch (option.name()) {
        case '1' -> one = true;
        case 'a' -> a = true;
        case 'B' -> bigB = true;
        case 'c' -> c = true;
        case 'f' -> f = true;
        case 'F' -> json = option.value();
        case 'G' -> bigG = true;
        case 'H' -> bigH = true;
        case 'i' -> i = true;
        case 'M' -> bigM = true;
        case 'n' -> n = true;
        case 'q' -> q = true;
        case 'Q' -> bigQ = true;
        case 'r' -> r = true;
        case 's' -> s = true;
        case 'T' -> bigT = true;
        case 't' -> t = true;
        case 'u' -> addUsers(option.value());
        case 'x' -> x = true;
        case '-' -> longOption(option.value());
        default -> {
          // -C, -e, -E and -l are accepted for compatibility and change nothing in Berth
        }
      }
    }

    private void addUsers(String list) {
      for (String user : list.split(",")) {
        if (!user.isBlank()) {
          users.add(user.trim());
        }
      }
    }

    private void longOption(String name) throws Getopt.UsageException, VersionRequested {
      if (name.equals("version")) {
        throw new VersionRequested();
      }
      throw new Getopt.UsageException("unrecognized option '--" + name + "'");
    }

    boolean alternateJobs() {
      return a || i || r || n || s || bigT || !users.isEmpty() || bigG || bigM;
    }

    void check() throws Getopt.UsageException {
      boolean altFlags = a || i || r || n || s || bigT || bigG || bigM || q;
      if (f && altFlags) {
        throw new Getopt.UsageException(
            CONFLICT + "\n -f incompatible with one or more options. Read qstat man page");
      }
      if (bigB && (bigQ || altFlags || !users.isEmpty())) {
        throw new Getopt.UsageException(
            CONFLICT + "\n -B incompatible with one or more options. Read qstat man page");
      }
      if (bigQ && (a || i || r || n || s || bigT || bigG || bigM || !users.isEmpty())) {
        throw new Getopt.UsageException(
            CONFLICT + "\n -Q incompatible with one or more options. Read qstat man page");
      }
      // -H lists only finished jobs: -c (leave them out) contradicts it; PBS_QSTAT_NO_COMPLETE,
      // a standing preference for the live listing, does not apply to it
      if (bigH && (bigB || bigQ || q || i || r || bigT || c)) {
        throw new Getopt.UsageException(
            CONFLICT + "\n -H incompatible with one or more options. Read qstat man page");
      }
      int exclusive = (a ? 1 : 0) + (i ? 1 : 0) + (r ? 1 : 0) + (q ? 1 : 0);
      if (exclusive > 1 || (bigG && bigM) || (one && !(n || f)) || (x && json != null)) {
        throw new Getopt.UsageException(CONFLICT);
      }
      if (json != null && !json.equals("json")) {
        throw new Getopt.UsageException("qstat: -F takes 'json', not '" + json + "'");
      }
    }

    QstatOptions build(List<String> operands, boolean noCompleteEnv) {
      Mode mode = bigB ? Mode.SERVER : (bigQ || q) ? Mode.QUEUES : Mode.JOBS;
      Set<String> states = new LinkedHashSet<>();
      if (i) {
        states.addAll(List.of("E", "H", "Q", "T", "W"));
      } else if (r) {
        states.addAll(List.of("R", "S"));
      }
      SizeUnit sizes = bigG ? SizeUnit.GB : bigM ? SizeUnit.MW : SizeUnit.AS_GIVEN;
      Output output = json != null ? Output.JSON : x ? Output.XML : Output.TEXT;
      return new QstatOptions(
          mode,
          f,
          !f && alternateJobs(),
          q,
          new AltJobTable.Style(n, one, s, bigT, sizes),
          Set.copyOf(states),
          Set.copyOf(users),
          c || noCompleteEnv,
          t,
          output,
          List.copyOf(new ArrayList<>(operands)),
          bigH);
    }
  }

  static final String USAGE =
      "usage: \n"
          + "                          qstat [-f [-1]] [-x] [-F json] [ job_identifier... |"
          + " destination... ]\n"
          + "                          qstat [-a|-i|-r|-e] [-u user] [-n [-1]] [-s] [-T] [-t] [-G|-M]"
          + " [-c] [job_id... | destination...]\n"
          + "                          qstat -Q [-f [-1]] [-F json] [ destination... ]\n"
          + "                          qstat -q [-G|-M] [ destination... ]\n"
          + "                          qstat -B [-f [-1]] [-F json] [ server_name... ]\n"
          + "                          qstat -H [-f [-1] | -a [-n [-1]] [-s]] [-x | -F json] [-u user]"
          + " [job_id...]\n"
          + "                          qstat -t\n";
}

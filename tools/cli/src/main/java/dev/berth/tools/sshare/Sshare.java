package dev.berth.tools.sshare;

import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.FairShareEntry;
import dev.berth.proto.FairShareList;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatFairShare;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.slurm.PrintFields;
import dev.berth.tools.slurm.SlurmCommandLine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sshare}: fair share as Slurm 22.05's sshare shows it, from the scheduler's (pbsfs's):
 * {@code root} with all usage, then each account and each user as a child of root, since Berth's
 * users and accounts are charged side by side (a job's factor is its user's times its account's)
 * rather than users within accounts; FairShare is each one's own factor. The caller's own user line
 * unless {@code -a} or {@code -u} asks for others; root and the accounts, and others' lines, only
 * for those the server shows everyone's usage (operators, and everyone with query_other_jobs), as
 * pbsfs.
 */
public final class Sshare {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("accounts", 'A', Arg.REQUIRED),
          new Option("all", 'a', Arg.NONE),
          new Option("helpformat", 'e', Arg.NONE),
          new Option("long", 'l', Arg.NONE),
          new Option("partition", 'm', Arg.NONE),
          new Option("cluster", 'M', Arg.REQUIRED),
          new Option("clusters", 'M', Arg.REQUIRED),
          new Option("noheader", 'n', Arg.NONE),
          new Option("format", 'o', Arg.REQUIRED),
          new Option("parsable", 'p', Arg.NONE),
          new Option("parsable2", 'P', Arg.NONE),
          new Option("users", 'u', Arg.REQUIRED),
          new Option("Users", 'U', Arg.NONE),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("help", (char) 0, Arg.NONE),
          new Option("usage", (char) 0, Arg.NONE),
          new Option("json", (char) 0, Arg.NONE),
          new Option("yaml", (char) 0, Arg.NONE));

  private static final Set<String> HONOURED =
      Set.of(
          "accounts",
          "all",
          "noheader",
          "parsable",
          "parsable2",
          "users",
          "Users",
          "version",
          "help",
          "usage");

  static final String USAGE =
      "Usage:  sshare [-A Accounts] [-a] [-l] [-n] [-p] [-P] [-u Users] [-U] [-v] [-V]";

  /** sshare's default columns: name and width (negative: on the left). */
  private static final List<String> NAMES =
      List.of(
          "Account", "User", "RawShares", "NormShares", "RawUsage", "EffectvUsage", "FairShare");

  private static final List<Integer> WIDTHS = List.of(-20, 10, 10, 11, 11, 13, 10);

  private Sshare() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read = SlurmCommandLine.read(inv, OPTIONS, HONOURED, Map.of(), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    Map<String, String> given = read.options();
    if (!read.operands().isEmpty()) {
      inv.err().println("sshare: error: Unrecognized option: " + read.operands().get(0));
      inv.err().println(USAGE);
      return 1;
    }
    List<String> users =
        given.containsKey("all")
            ? List.of()
            : given.containsKey("users")
                ? SlurmCommandLine.list(given.get("users"))
                : List.of(SlurmCommandLine.caller(inv));
    FairShareList shares;
    try (ServerConnection server = context.connector().connect(inv)) {
      Response r =
          server.call(Request.newBuilder().setStatFairShare(StatFairShare.getDefaultInstance()));
      if (SlurmCommandLine.refused(inv, r)) {
        return 1;
      }
      shares = r.getFairShare();
    } catch (ServerUnavailableException e) {
      inv.err().println("sshare: error: " + e.getMessage());
      return 1;
    }
    List<String> accounts = SlurmCommandLine.list(given.get("accounts"));
    boolean usersOnly = given.containsKey("Users");
    List<String[]> rows = new ArrayList<>();
    // the accounts, and so all usage, only for those the server shows every user's
    boolean whole = shares.getAccountsCount() > 0;
    if (!usersOnly && accounts.isEmpty() && whole) {
      double total = shares.getUsersList().stream().mapToDouble(FairShareEntry::getRawUsage).sum();
      rows.add(new String[] {"root", "", "", decimal(0), usage(total), decimal(1), ""});
    }
    if (!usersOnly) {
      for (FairShareEntry account : shares.getAccountsList()) {
        if (accounts.isEmpty() || accounts.contains(account.getName())) {
          rows.add(
              row(accounts.isEmpty() ? " " + account.getName() : account.getName(), "", account));
        }
      }
    }
    if (accounts.isEmpty()) {
      for (FairShareEntry user : shares.getUsersList()) {
        if (users.isEmpty() || users.contains(user.getName())) {
          rows.add(row(usersOnly ? "root" : " root", user.getName(), user));
        }
      }
    }
    print(inv, given, rows);
    return 0;
  }

  private static String[] row(String account, String user, FairShareEntry e) {
    return new String[] {
      account,
      user,
      Long.toString(e.getRawShares()),
      decimal(e.getNormShares()),
      usage(e.getRawUsage()),
      decimal(e.getEffectiveUsage()),
      decimal(e.getFactor())
    };
  }

  private static String decimal(double value) {
    return Double.isInfinite(value) ? "inf" : String.format(Locale.ROOT, "%f", value);
  }

  private static String usage(double cpuSeconds) {
    return Long.toString(Math.round(cpuSeconds));
  }

  /** Slurm's print_fields columns, or -p/-P. */
  private static void print(Invocation inv, Map<String, String> given, List<String[]> rows) {
    String mode =
        given.containsKey("parsable")
            ? PrintFields.PARSABLE
            : given.containsKey("parsable2") ? PrintFields.PARSABLE2 : PrintFields.COLUMNS;
    if (!given.containsKey("noheader")) {
      PrintFields.header(NAMES, WIDTHS, mode).forEach(inv.out()::println);
    }
    for (String[] row : rows) {
      List<String> values = Arrays.stream(row).map(ControlCharacters::escape).toList();
      inv.out().println(PrintFields.row(values, WIDTHS, mode));
    }
  }
}

package dev.berth.tools.scontrol;

import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BerthVersion;
import dev.berth.core.ControlCharacters;
import dev.berth.core.slurm.HostList;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.qsub.ScontrolUpdate;
import dev.berth.tools.qsub.SlurmKeyword;
import dev.berth.tools.slurm.SlurmCommandLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code scontrol}: Slurm's administration command, for what Berth has: {@code show job|node|
 * partition} (Slurm's {@code Key=Value} records, {@code -o} a line each), {@code show hostnames}
 * and {@code hostlist[sorted]}, {@code hold}, {@code uhold}, {@code release}, {@code requeue},
 * {@code requeuehold}, {@code suspend}, {@code resume} and {@code update JobId=...}. Keywords are
 * read as Slurm reads them (any case, abbreviated to Slurm's lengths); Slurm's other keywords are
 * refused by name, and what Slurm does not know in its words. Exit status 0, or 1 when anything
 * failed.
 */
public final class Scontrol {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("all", 'a', Arg.NONE),
          new Option("cluster", 'M', Arg.REQUIRED),
          new Option("clusters", 'M', Arg.REQUIRED),
          new Option("details", 'd', Arg.NONE),
          new Option("federation", (char) 0, Arg.NONE),
          new Option("future", 'F', Arg.NONE),
          new Option("help", 'h', Arg.NONE),
          new Option("hide", (char) 0, Arg.NONE),
          new Option("json", (char) 0, Arg.NONE),
          new Option("local", (char) 0, Arg.NONE),
          new Option("oneliner", 'o', Arg.NONE),
          new Option("quiet", 'Q', Arg.NONE),
          new Option("sibling", (char) 0, Arg.NONE),
          new Option("uid", 'u', Arg.REQUIRED),
          new Option("usage", (char) 0, Arg.NONE),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("yaml", (char) 0, Arg.NONE));

  /**
   * What Berth's scontrol honours: {@code -a} and {@code --hide} change nothing because Berth has
   * no hidden partitions; the others as Slurm's.
   */
  private static final Set<String> HONOURED =
      Set.of("all", "details", "help", "hide", "oneliner", "quiet", "usage", "version");

  static final String USAGE =
      "Usage: scontrol [-a] [-d] [-o] [-Q] <keyword> ...\n"
          + "  keywords: show job|node|partition|hostnames|hostlist|hostlistsorted [ID],\n"
          + "            hold|uhold|release|requeue|requeuehold|suspend|resume <job_list>,\n"
          + "            update JobId=<job_id> <Key>=<value> ...";

  private static final SlurmKeyword SHOW = new SlurmKeyword("show", 3);
  private static final SlurmKeyword UPDATE = new SlurmKeyword("update", 1);
  private static final SlurmKeyword RELEASE = new SlurmKeyword("release", 3);
  private static final SlurmKeyword REQUEUE = new SlurmKeyword("requeue", 3);
  private static final SlurmKeyword REQUEUE_HOLD = new SlurmKeyword("requeuehold", 11);
  private static final SlurmKeyword SUSPEND = new SlurmKeyword("suspend", 2);
  private static final SlurmKeyword RESUME = new SlurmKeyword("resume", 3);
  private static final SlurmKeyword VERSION = new SlurmKeyword("version", 4);

  /** Slurm's other keywords, which Berth's scontrol does not act on (yet). */
  private static final List<SlurmKeyword> NOT_HONOURED =
      List.of(
          new SlurmKeyword("abort", 5),
          new SlurmKeyword("cancel_reboot", 3),
          new SlurmKeyword("cluster", 2),
          new SlurmKeyword("completing", 2),
          new SlurmKeyword("create", 2),
          new SlurmKeyword("delete", 1),
          new SlurmKeyword("errnumstr", 2),
          new SlurmKeyword("fsdampeningfactor", 3),
          new SlurmKeyword("getent", 6),
          new SlurmKeyword("gethost", 7),
          new SlurmKeyword("listpids", 1),
          new SlurmKeyword("notify", 1),
          new SlurmKeyword("pidinfo", 3),
          new SlurmKeyword("ping", 3),
          new SlurmKeyword("reboot_nodes", 3),
          new SlurmKeyword("reconfigure", 3),
          new SlurmKeyword("schedloglevel", 3),
          new SlurmKeyword("setdebug", 2),
          new SlurmKeyword("setdebugflags", 9),
          new SlurmKeyword("shutdown", 8),
          new SlurmKeyword("takeover", 8),
          new SlurmKeyword("token", 3),
          new SlurmKeyword("top", 3),
          new SlurmKeyword("wait_job", 2),
          new SlurmKeyword("write", 5));

  private Scontrol() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read =
        SlurmCommandLine.read(
            inv.withArgs(optionsFirst(inv.args())), OPTIONS, HONOURED, Map.of(), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    Map<String, String> given = read.options();
    List<String> words = read.operands();
    if (words.isEmpty()) {
      inv.err()
          .println(
              "scontrol: error: Berth's scontrol takes its keyword on the command line"
                  + " (it has no interactive mode)");
      inv.err().println(USAGE);
      return 1;
    }
    Output out = new Output(inv, given.containsKey("quiet"));
    String keyword = words.get(0);
    List<String> rest = words.subList(1, words.size());
    if (SHOW.named(keyword) && !rest.isEmpty()) {
      String entity = rest.get(0);
      String value = rest.size() > 1 ? rest.get(1) : null;
      int eq = entity.indexOf('=');
      if (eq >= 0) {
        value = entity.substring(eq + 1);
        entity = entity.substring(0, eq);
      }
      if (rest.size() > 2) {
        return out.fail("too many arguments for keyword:" + keyword);
      }
      if (Show.HOST_NAMES.named(entity)) {
        return hostNames(inv, value != null ? value : inv.env().get("SLURM_NODELIST"));
      }
      if (Show.HOST_LIST.named(entity) || Show.HOST_LIST_SORTED.named(entity)) {
        return hostList(inv, out, value, Show.HOST_LIST_SORTED.named(entity));
      }
      String shown = entity;
      String id = value;
      return withServer(
          inv, context, server -> Show.run(server, inv, context, out, keyword, shown, id, given));
    }
    if (VERSION.named(keyword)) {
      inv.out().println("berth " + BerthVersion.NUMBER);
      return 0;
    }
    Action action;
    if (SHOW.named(keyword)) {
      return out.fail("too few arguments for keyword:" + keyword);
    } else if (UPDATE.named(keyword)) {
      if (rest.isEmpty()) {
        return out.fail("too few arguments for " + keyword + " keyword");
      }
      ScontrolUpdate.Update update;
      try {
        update = ScontrolUpdate.of(rest, context.clock());
      } catch (ScontrolUpdate.RefusedException e) {
        return out.fail(e.getMessage());
      }
      action = server -> JobChanges.update(server, inv, out, update);
    } else if (REQUEUE_HOLD.named(keyword)) {
      return out.fail(
          "scontrol: error: requeuehold is not supported by Berth's scontrol yet (requeue, then"
              + " hold once the job is queued again)");
    } else if (holds(keyword)
        || REQUEUE.named(keyword)
        || SUSPEND.named(keyword)
        || RESUME.named(keyword)) {
      if (rest.isEmpty()) {
        return out.fail("too few arguments for keyword:" + keyword);
      }
      action = server -> JobChanges.apply(server, inv, out, keyword, rest);
    } else {
      for (SlurmKeyword other : NOT_HONOURED) {
        if (other.named(keyword)) {
          return out.fail(
              "scontrol: error: "
                  + other.name()
                  + " is not supported by Berth's scontrol yet (docs/slurm.md lists what is)");
        }
      }
      return out.fail("invalid keyword: " + keyword);
    }
    return withServer(inv, context, action);
  }

  private static int withServer(Invocation inv, CliContext context, Action action) {
    try (ServerConnection server = context.connector().connect(inv)) {
      return action.run(server);
    } catch (ServerUnavailableException e) {
      inv.err().println("scontrol: error: " + e.getMessage());
      return 1;
    }
  }

  /** hold (any word starting so, as Slurm compares four letters), holdu, uhold, release. */
  private static boolean holds(String keyword) {
    return keyword.regionMatches(true, 0, "hold", 0, 4)
        || keyword.equalsIgnoreCase("uhold")
        || RELEASE.named(keyword);
  }

  @FunctionalInterface
  private interface Action {
    int run(ServerConnection server) throws ServerUnavailableException;
  }

  /**
   * {@code show hostnames LIST}: a name a line ({@code SLURM_NODELIST} without a list). A list that
   * cannot be read is reported, and as Slurm's scontrol does, the status stays 0.
   */
  private static int hostNames(Invocation inv, String list) {
    if (list == null) {
      inv.err().println("scontrol: error: host list is empty");
      return 0;
    }
    try {
      for (String host : HostList.expand(list)) {
        inv.out().println(ControlCharacters.escape(host));
      }
    } catch (HostList.InvalidException e) {
      inv.err().println(ControlCharacters.escape(e.getMessage()));
    }
    return 0;
  }

  /**
   * {@code show hostlist NAMES}: the names as one host list, in their order ({@code n[3,1-2]});
   * hostlistsorted sorts them first ({@code n[1-3]}).
   */
  private static int hostList(Invocation inv, Output out, String names, boolean sorted) {
    if (names == null) {
      inv.err().println("invalid encode argument");
      inv.err().println(USAGE);
      return 1;
    }
    if (names.startsWith("/")) {
      return out.fail(
          "scontrol: error: show hostlist of a file of names is not supported by Berth's scontrol"
              + " yet: give the names");
    }
    try {
      List<String> hosts = HostList.expand(names);
      String list = sorted ? HostList.compress(hosts) : HostList.ranged(hosts);
      inv.out().println(ControlCharacters.escape(list));
      return 0;
    } catch (HostList.InvalidException e) {
      return out.fail(e.getMessage());
    }
  }

  /**
   * Slurm's scontrol reads its options wherever they are (getopt_long permutes): they are moved
   * before the keyword here, each with the value of {@code -M} or {@code -u} that follows it.
   */
  static List<String> optionsFirst(List<String> args) {
    List<String> options = new ArrayList<>();
    List<String> words = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        words.addAll(args.subList(i + 1, args.size()));
        break;
      }
      if (a.startsWith("-") && a.length() > 1) {
        options.add(a);
        boolean takesNext =
            a.equals("-M")
                || a.equals("-u")
                || a.equals("--cluster")
                || a.equals("--clusters")
                || a.equals("--uid");
        if (takesNext && i + 1 < args.size()) {
          options.add(args.get(++i));
        }
      } else {
        words.add(a);
      }
    }
    options.add("--");
    options.addAll(words);
    return options;
  }
}

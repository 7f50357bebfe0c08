package dev.berth.tools.pbsfs;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import dev.berth.proto.FairShareEntry;
import dev.berth.proto.FairShareList;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatFairShare;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.format.JsonWriter;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code pbsfs [-F json] [user...]}: fair-share usage, shares and factor of each account and user,
 * as Slurm's sshare shows them (OpenPBS's pbsfs names the command; its tree and its options to
 * change usage are not Berth's: usage comes only from jobs). Users see their own line unless
 * query_other_jobs is on; operators see every line.
 */
public final class Pbsfs {
  private static final String USAGE = "usage: pbsfs [-F json] [user...]\n";
  private static final String HEADER =
      "Type     Name                  RawShares  NormShares       RawUsage  EffectvUsage"
          + "  FairShare\n"
          + "-------- -------------------- ---------- ----------- -------------- -------------"
          + " ----------\n";

  private Pbsfs() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    Getopt.Result parsed;
    boolean json = false;
    try {
      parsed = Getopt.parse("F:", invocation.args());
      for (Getopt.Option option : parsed.options()) {
        if (!option.value().equals("json")) {
          throw new Getopt.UsageException("-F takes 'json', not '" + option.value() + "'");
        }
        json = true;
      }
    } catch (Getopt.UsageException e) {
      if (e.getMessage() != null) {
        invocation.error(e.getMessage());
      }
      invocation.err().print(USAGE);
      return ExitCodes.USAGE;
    }
    try (ServerConnection transport = context.connector().connect(invocation)) {
      Response response =
          transport.call(
              Request.newBuilder()
                  .setStatFairShare(StatFairShare.newBuilder().addAllUsers(parsed.operands())));
      Optional<Error> failure = Replies.failure(response, Response.BodyCase.FAIR_SHARE);
      if (failure.isPresent()) {
        invocation.err().println(ErrorText.general("pbsfs", failure.get()));
        return ExitCodes.of(failure.get());
      }
      FairShareList list = response.getFairShare();
      invocation.out().print(json ? json(list) : text(list));
      return ExitCodes.OK;
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  /** The table: accounts first, then users, each with usage in CPU-seconds decayed to now. */
  public static String text(FairShareList list) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "Fair-share usage in CPU-seconds, halving every %d s\n\n",
                list.getHalfLife()));
    out.append(HEADER);
    list.getAccountsList().forEach(e -> out.append(row("account", e)));
    list.getUsersList().forEach(e -> out.append(row("user", e)));
    return out.toString();
  }

  private static String row(String type, FairShareEntry e) {
    return String.format(
        Locale.ROOT,
        "%-8s %-20.20s %10d %11.6f %14.0f %13.6f %10.6f\n",
        type,
        ControlCharacters.escape(e.getName()),
        e.getRawShares(),
        e.getNormShares(),
        e.getRawUsage(),
        e.getEffectiveUsage(),
        e.getFactor());
  }

  private static String json(FairShareList list) {
    JsonWriter json = new JsonWriter().beginObject();
    json.field("half_life", list.getHalfLife());
    json.beginObject("accounts");
    list.getAccountsList().forEach(e -> entry(json, e));
    json.endObject();
    json.beginObject("users");
    list.getUsersList().forEach(e -> entry(json, e));
    json.endObject();
    return json.endObject().toString();
  }

  private static void entry(JsonWriter json, FairShareEntry e) {
    json.beginObject(e.getName())
        .field("raw_shares", e.getRawShares())
        .field("norm_shares", e.getNormShares())
        .field("raw_usage", e.getRawUsage())
        .field("effective_usage", e.getEffectiveUsage())
        .field("fair_share", e.getFactor())
        .endObject();
  }
}

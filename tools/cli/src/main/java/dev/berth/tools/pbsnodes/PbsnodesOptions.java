package dev.berth.tools.pbsnodes;

import dev.berth.client.Getopt;
import dev.berth.tools.cli.VersionRequested;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * pbsnodes' command line, by Torque 6's rules: the last of {@code -a -c -l -o -x} (and Berth's
 * {@code -F json}) picks the action, {@code -N note} alone sets notes, {@code -N n} clears them,
 * {@code -n} (notes in the listing) needs {@code -l}, and {@code -l} takes an optional state word
 * before the node names.
 */
record PbsnodesOptions(
    Action action,
    String note,
    boolean listNotes,
    boolean quiet,
    String listState,
    List<String> nodes) {

  enum Action {
    SHOW,
    XML,
    JSON,
    LIST,
    OFFLINE,
    CLEAR,
    NOTE
  }

  /** The state words {@code -l} takes, as Torque's NState table. */
  static final List<String> STATES =
      List.of(
          "free",
          "offline",
          "down",
          "reserve",
          "job-exclusive",
          "job-sharing",
          "busy",
          "state-unknown",
          "time-shared",
          "active",
          "all",
          "up");

  static final String USAGE =
      "usage:\tpbsnodes [-{c|l|o}] [-s server] [-n] [-N \"note\"] [-q] node ...\n"
          + "\tpbsnodes [-{a|x}] [-F json] [-s server] [-q] [node]\n";

  static PbsnodesOptions parse(List<String> args) throws Getopt.UsageException, VersionRequested {
    Getopt.Result parsed = Getopt.parse("aclnoqrs:xF:N:-:", args);
    Action action = Action.SHOW;
    String note = null;
    boolean listNotes = false;
    boolean quiet = false;
    for (Getopt.Option option : parsed.options()) {
      switch (option.name()) {
        case 'a' -> action = Action.SHOW;
        case 'c' -> action = Action.CLEAR;
        case 'l' -> action = Action.LIST;
        case 'o' -> action = Action.OFFLINE;
        case 'x' -> action = Action.XML;
        case 'F' -> action = json(option.value());
        case 'N' -> {
          note = option.value().equals("n") ? "" : option.value();
          if (action == Action.SHOW) {
            action = Action.NOTE;
          }
        }
        case 'n' -> listNotes = true;
        case 'q' -> quiet = true;
        case 'r' ->
            throw new Getopt.UsageException(
                "-r is not supported: a node is marked down only by its mom's silence");
        case '-' -> {
          if (option.value().equals("version")) {
            throw new VersionRequested();
          }
          throw new Getopt.UsageException("unrecognized option '--" + option.value() + "'");
        }
        default -> {
          // -s server: Berth's clients reach their server through BERTH_SERVER
        }
      }
    }
    if (listNotes && action != Action.LIST) {
      throw new Getopt.UsageException("Error: -n requires -l");
    }
    List<String> nodes = new ArrayList<>(parsed.operands());
    if (nodes.stream().anyMatch(String::isEmpty)) {
      throw new Getopt.UsageException(null);
    }
    String listState = "";
    if (action == Action.LIST && !nodes.isEmpty() && STATES.contains(lower(nodes.get(0)))) {
      listState = lower(nodes.remove(0));
    }
    boolean marks = action == Action.OFFLINE || action == Action.CLEAR || action == Action.NOTE;
    if (marks && nodes.isEmpty()) {
      throw new Getopt.UsageException("no node given");
    }
    return new PbsnodesOptions(action, note, listNotes, quiet, listState, List.copyOf(nodes));
  }

  private static Action json(String format) throws Getopt.UsageException {
    if (!format.equals("json")) {
      throw new Getopt.UsageException("-F takes 'json', not '" + format + "'");
    }
    return Action.JSON;
  }

  private static String lower(String text) {
    return text.toLowerCase(Locale.ROOT);
  }

  /** Torque's filterbystate: which nodes {@code -l [state]} lists, by their state text. */
  static boolean listed(String listState, String state) {
    switch (listState) {
      case "":
        return state.contains("down")
            || state.contains("offline")
            || state.contains("state-unknown");
      case "down":
        return state.contains("down") || state.contains("state-unknown");
      case "active":
        return state.contains("busy")
            || state.contains("job-exclusive")
            || state.contains("job-sharing");
      case "all":
        return true;
      case "up":
        return !state.contains("down")
            && !state.contains("offline")
            && !state.contains("state-unknown");
      default:
        return state.contains(listState);
    }
  }
}

package dev.berth.tools.qselect;

import dev.berth.client.BadArgumentException;
import dev.berth.client.LocalTimeArgument;
import dev.berth.core.Durations;
import dev.berth.core.Sizes;
import dev.berth.proto.Job;
import dev.berth.tools.qstat.JobAttributeList;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * qselect's criteria, as Torque 6's req_select compares them: each option a test a job must pass,
 * with Torque's comparison operators ({@code .eq. .ne. .ge. .gt. .le. .lt.}, {@code .eq.} when none
 * is given) where the option takes one. A resource a job did not ask for counts as less than any
 * value. Pure: the jobs come from the server, the selection is made here.
 */
final class JobSelection {
  /** A value the option does not take, in Torque's words ({@code illegal -s value}). */
  static final class IllegalValue extends Exception {
    private static final long serialVersionUID = 1L;

    IllegalValue(char option) {
      super("illegal -" + option + " value");
    }
  }

  enum Op {
    EQ,
    NE,
    GE,
    GT,
    LE,
    LT;

    /** Whether a comparison result (below, at or above zero) passes. */
    boolean passes(int rc) {
      return switch (this) {
        case EQ -> rc == 0;
        case NE -> rc != 0;
        case GE -> rc >= 0;
        case GT -> rc > 0;
        case LE -> rc <= 0;
        case LT -> rc < 0;
      };
    }
  }

  /** An operator prefix and the value after it. */
  record Operand(Op op, String value) {
    static Operand of(String text) {
      if (text.length() >= 4 && text.charAt(0) == '.' && text.charAt(3) == '.') {
        for (Op op : Op.values()) {
          if (text.substring(1, 3).equalsIgnoreCase(op.name())) {
            return new Operand(op, text.substring(4));
          }
        }
      }
      return new Operand(Op.EQ, text);
    }
  }

  private static final Set<String> TIMES = Set.of("walltime", "cput", "pcput");
  private static final Set<String> SIZES = Set.of("mem", "vmem", "pmem", "pvmem", "file");
  private static final Set<String> NUMBERS = Set.of("ncpus", "procs", "nodect", "gpus", "nice");

  private final List<Predicate<Job>> tests = new ArrayList<>();
  private String queue;

  /** Adds option {@code o}'s test; {@code clock} reads -a's local date and time. */
  void add(char o, String value, Clock clock) throws IllegalValue {
    Operand v = Operand.of(value);
    switch (o) {
      case 'a' -> {
        long at;
        try {
          at = LocalTimeArgument.parse(v.value(), clock);
        } catch (BadArgumentException e) {
          throw new IllegalValue(o);
        }
        tests.add(j -> v.op().passes(Long.compare(j.getExecutionTime(), at)));
      }
      case 'A' -> tests.add(j -> j.getAccount().equals(value));
      case 'c' -> {
        int wanted = checkpointRank(v.value());
        if (wanted < 0 || (wanted == 1 && v.op() != Op.EQ && v.op() != Op.NE)) {
          throw new IllegalValue(o);
        }
        tests.add(j -> v.op().passes(Integer.compare(checkpointRank(j.getCheckpoint()), wanted)));
      }
      case 'e' -> {
        // every queue of Berth's is an execution queue
      }
      case 'h' -> {
        String holds = holds(v.value(), o);
        if (v.op() != Op.EQ && v.op() != Op.NE) {
          throw new IllegalValue(o);
        }
        tests.add(
            j -> v.op().passes(JobAttributeList.holdTypes(j.getHolds()).equals(holds) ? 0 : 1));
      }
      case 'l' -> {
        for (String item : value.split(",")) {
          tests.add(resource(item));
        }
      }
      case 'N' -> tests.add(j -> j.getName().equals(value));
      case 'p' -> {
        long priority;
        try {
          priority = Long.parseLong(v.value().strip());
        } catch (NumberFormatException e) {
          throw new IllegalValue(o);
        }
        tests.add(j -> v.op().passes(Long.compare(j.getPriority(), priority)));
      }
      case 'q' -> queue = value;
      case 'r' -> {
        if (!value.equals("y") && !value.equals("n")) {
          throw new IllegalValue(o);
        }
        tests.add(j -> j.getRerunnable() == value.equals("y"));
      }
      case 's' -> {
        String states = v.value().toUpperCase(Locale.ROOT);
        if (states.isEmpty() || !states.chars().allMatch(c -> "CEHQRSTW".indexOf(c) >= 0)) {
          throw new IllegalValue(o);
        }
        tests.add(
            j -> {
              boolean in = states.indexOf(JobAttributeList.stateLetter(j).charAt(0)) >= 0;
              return v.op() == Op.NE ? !in : in;
            });
      }
      case 'u' -> {
        List<String> users = List.of(value.split(","));
        if (users.stream().anyMatch(u -> u.isBlank() || u.startsWith("@"))) {
          throw new IllegalValue(o);
        }
        tests.add(j -> users.stream().anyMatch(u -> owns(j, u)));
      }
      default -> throw new IllegalValue(o);
    }
  }

  /** The queue -q names (its {@code @server} part dropped), or null for every queue. */
  String queue() {
    if (queue == null || queue.startsWith("@")) {
      return null;
    }
    int at = queue.indexOf('@');
    return at < 0 ? queue : queue.substring(0, at);
  }

  boolean selects(Job job) {
    String q = queue();
    return (q == null || job.getQueue().equals(q)) && tests.stream().allMatch(t -> t.test(job));
  }

  /** {@code -l name.op.value}: the operator is required, as in Torque. */
  private static Predicate<Job> resource(String item) throws IllegalValue {
    int dot = item.indexOf('.');
    if (dot <= 0) {
      throw new IllegalValue('l');
    }
    String name = item.substring(0, dot);
    Operand v = Operand.of(item.substring(dot));
    if (v.value().length() == item.length() - dot) {
      throw new IllegalValue('l'); // no operator
    }
    Comparator compare = comparator(name, v.value());
    return j -> {
      String has = j.getResources().getValuesMap().get(name);
      return v.op().passes(has == null ? -1 : compare.against(has));
    };
  }

  @FunctionalInterface
  private interface Comparator {
    int against(String jobValue);
  }

  private static Comparator comparator(String name, String value) throws IllegalValue {
    try {
      if (TIMES.contains(name)) {
        long wanted = Durations.parseSeconds(value);
        return has -> Long.compare(Durations.parseSeconds(has), wanted);
      }
      if (SIZES.contains(name)) {
        long wanted = Sizes.parseBytes(value);
        return has -> Long.compare(Sizes.parseBytes(has), wanted);
      }
      if (NUMBERS.contains(name)) {
        long wanted = Long.parseLong(value);
        return has -> Long.compare(Long.parseLong(has), wanted);
      }
      if (name.equals("nodes")) { // Torque compares node counts
        long wanted = nodeCount(value);
        return has -> Long.compare(nodeCount(has), wanted);
      }
    } catch (RuntimeException e) {
      throw new IllegalValue('l');
    }
    return has -> Integer.signum(has.compareTo(value));
  }

  /** {@code 2:ppn=4+n05} has 3 nodes: a leading number counts that many, a name one. */
  static long nodeCount(String spec) {
    long count = 0;
    for (String part : spec.split("\\+")) {
      String first = part.split(":", 2)[0];
      count +=
          first.chars().allMatch(Character::isDigit) && !first.isEmpty()
              ? Long.parseLong(first)
              : 1;
    }
    return count;
  }

  /** Torque's checkpoint order: n > s > c=minutes > c > u; -1 for anything else. */
  private static int checkpointRank(String c) {
    return switch (c) {
      case "n" -> 5;
      case "s" -> 4;
      case "c" -> 2;
      case "u", "" -> 1;
      default -> c.matches("c=\\d+") ? 3 : -1;
    };
  }

  /** A hold list as qstat shows it: letters of u, o and s in that order, or n. */
  private static String holds(String value, char o) throws IllegalValue {
    if (value.equals("n")) {
      return "n";
    }
    if (value.isEmpty() || !value.chars().allMatch(c -> "uos".indexOf(c) >= 0)) {
      throw new IllegalValue(o);
    }
    StringBuilder ordered = new StringBuilder();
    for (char c : "uos".toCharArray()) {
      if (value.indexOf(c) >= 0) {
        ordered.append(c);
      }
    }
    return ordered.toString();
  }

  /**
   * {@code user} or {@code user@host} against the job's owner ({@code user@submithost}), as Torque
   * compares User_List with Job_Owner: the user exactly, a host in any case.
   */
  private static boolean owns(Job job, String who) {
    String owner = job.getOwner();
    int at = owner.indexOf('@');
    String user = at < 0 ? owner : owner.substring(0, at);
    String host = at < 0 ? "" : owner.substring(at + 1);
    int whoAt = who.indexOf('@');
    return whoAt < 0
        ? user.equals(who)
        : user.equals(who.substring(0, whoAt)) && host.equalsIgnoreCase(who.substring(whoAt + 1));
  }
}

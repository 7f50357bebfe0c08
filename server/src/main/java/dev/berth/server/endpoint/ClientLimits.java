package dev.berth.server.endpoint;

import dev.berth.core.Budget;
import dev.berth.core.Frames;
import dev.berth.core.Sizes;
import dev.berth.server.command.job.JobBudget;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the clients of the server's socket may make it hold: per connection, per user and for all
 * users together. They are daemon settings, not server attributes: they guard this process's heap
 * (set beside it, in the environment the daemon starts with) and must hold even when nobody can get
 * a qmgr command through.
 *
 * @param frameBytes the largest request frame; a longer declared length is refused unread
 * @param userConnections connections one user may have open (root and the server's own user are
 *     trusted: none of the counts limits them, only the bytes they make the server hold)
 * @param userRequests requests of one user the server works on at once
 * @param userBufferBytes bytes of one user's requests the server holds: partial frames being read,
 *     and requests received but not yet answered
 * @param userReplyBytes bytes of replies to one user written to the socket but not yet read
 * @param replyBytes the largest reply, encoded (and the most a command the server runs for the
 *     native client may print): a request whose answer would be larger is refused with a message
 *     that says so, before the answer is built
 * @param connections connections of all users together, trusted users' not counted
 * @param bufferBytes request and reply bytes of all users together, trusted users' not counted
 * @param userJobBytes the memory one user's jobs may take in the server's state (an estimate of
 *     each job's bytes, completed jobs kept for keep_completed included): a submission or qalter
 *     that would take more is refused; operators and managers are not held to it
 * @param jobBytes the memory the jobs of all users together may take in the server's state, which
 *     holds for everyone
 * @param stall a connection that is throttled this long (its replies unread, or waiting under a
 *     limit) is dropped
 * @param idle a connection that sends nothing (or only part of a frame) for this long is closed
 */
public record ClientLimits(
    int frameBytes,
    int userConnections,
    int userRequests,
    long userBufferBytes,
    long userReplyBytes,
    long replyBytes,
    int connections,
    long bufferBytes,
    long userJobBytes,
    long jobBytes,
    Duration stall,
    Duration idle) {

  private static final int DEFAULT_FRAME = 16 << 20;

  /** A frame must fit in one Java array. */
  private static final long MAX_FRAME = Integer.MAX_VALUE - 8;

  /**
   * The default reply limit's share of the heap: the replies being made at once (one per query and
   * per command thread, six) must leave room for the state and what clients have not read.
   */
  private static final int REPLY_HEAP_SHARE = 64;

  private static final long MIN_DEFAULT_REPLY = 16 << 20;

  /**
   * The default share of the heap for what clients send and have not read: with the replies being
   * made, the jobs, the cluster and relay ports and the moms a daemon embeds, it must fit in the
   * heap (docs/security.md, "Budgets").
   */
  private static final int BUFFER_HEAP_SHARE = 8;

  /**
   * The default share of the heap all jobs may take in the state: the state lives in the heap and
   * is rebuilt in it at every start, so it must leave room for what clients send (a quarter), the
   * replies being made, a snapshot being written and the collector's headroom.
   */
  private static final int JOBS_HEAP_SHARE = 4;

  /** The default share of the heap one user's jobs may take: a quarter of what all jobs may. */
  private static final int USER_JOBS_HEAP_SHARE = 16;

  /** The environment variable that overrides the defaults: {@code name=value,...}. */
  public static final String VARIABLE = "BERTH_CLIENT_LIMITS";

  /** Each limit by the name the settings, the guide and the log lines use. */
  public enum Limit {
    FRAME("frame"),
    USER_CONNECTIONS("user_connections"),
    USER_REQUESTS("user_requests"),
    USER_BUFFER("user_buffer"),
    USER_REPLIES("user_replies"),
    REPLY("reply"),
    CONNECTIONS("connections"),
    BUFFER("buffer"),
    USER_JOBS("user_jobs"),
    JOBS("jobs"),
    STALL("stall"),
    IDLE("idle");

    final String setting;

    Limit(String setting) {
      this.setting = setting;
    }

    static Limit named(String setting) {
      for (Limit l : values()) {
        if (l.setting.equals(setting)) {
          return l;
        }
      }
      throw new IllegalArgumentException(
          "unknown client limit '"
              + setting
              + "'; the limits are "
              + Arrays.stream(values()).map(l -> l.setting).collect(Collectors.joining(", ")));
    }
  }

  public ClientLimits {
    if (replyBytes > Frames.REPLY_LIMIT) {
      throw new IllegalArgumentException(
          Limit.REPLY.setting
              + " ("
              + Sizes.readable(replyBytes)
              + ") may be at most "
              + Sizes.readable(Frames.REPLY_LIMIT)
              + ", the largest reply the clients read");
    }
    // A largest request, with the first buffers of the user's other connections, must fit.
    for (Limit budget : new Limit[] {Limit.USER_BUFFER, Limit.BUFFER}) {
      long bytes = budget == Limit.USER_BUFFER ? userBufferBytes : bufferBytes;
      if (bytes < 2L * frameBytes) {
        throw new IllegalArgumentException(
            budget.setting
                + " ("
                + Sizes.readable(bytes)
                + ") must hold two of the largest requests (frame="
                + Sizes.readable(frameBytes)
                + ")");
      }
    }
  }

  /**
   * The defaults for a server whose heap may grow to {@code maxHeapBytes}: an eighth of it for what
   * clients send and have not read (but room for two of the largest requests), a sixty-fourth for
   * one reply (at least 16 MiB, so that a table of a 10,000-subjob array fits; at most what clients
   * read), a quarter for the jobs in the state (a sixteenth for one user's), the rest for the other
   * inputs and the work.
   */
  public static ClientLimits defaults(long maxHeapBytes) {
    return new ClientLimits(
        DEFAULT_FRAME,
        64,
        16,
        64L << 20,
        64L << 20,
        Math.min(Math.max(maxHeapBytes / REPLY_HEAP_SHARE, MIN_DEFAULT_REPLY), Frames.REPLY_LIMIT),
        4096,
        Math.max(maxHeapBytes / BUFFER_HEAP_SHARE, 2L * DEFAULT_FRAME),
        maxHeapBytes / USER_JOBS_HEAP_SHARE,
        maxHeapBytes / JOBS_HEAP_SHARE,
        Duration.ofSeconds(60),
        Duration.ofMinutes(5));
  }

  /** What the jobs in the server's state may take: {@code user_jobs} and {@code jobs}. */
  public JobBudget jobBudget() {
    return new JobBudget(userJobBytes, jobBytes);
  }

  /** The defaults, with what {@value #VARIABLE} in {@code environment} sets instead. */
  public static ClientLimits fromEnvironment(Map<String, String> environment, long maxHeapBytes) {
    try {
      return defaults(maxHeapBytes).with(environment.getOrDefault(VARIABLE, ""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(VARIABLE + ": " + e.getMessage(), e);
    }
  }

  /** These limits with {@code settings} ({@code user_connections=32,stall=30s}) applied. */
  public ClientLimits with(String settings) {
    Map<Limit, String> set = new EnumMap<>(Limit.class);
    for (String setting : settings.split(",")) {
      if (setting.isBlank()) {
        continue;
      }
      int eq = setting.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("'" + setting.trim() + "' is not name=value");
      }
      set.put(Limit.named(setting.substring(0, eq).trim()), setting.substring(eq + 1).trim());
    }
    return new ClientLimits(
        (int) Math.min(get(set, Limit.FRAME, ClientLimits::bytes, (long) frameBytes), MAX_FRAME),
        get(set, Limit.USER_CONNECTIONS, ClientLimits::count, userConnections),
        get(set, Limit.USER_REQUESTS, ClientLimits::count, userRequests),
        get(set, Limit.USER_BUFFER, ClientLimits::bytes, userBufferBytes),
        get(set, Limit.USER_REPLIES, ClientLimits::bytes, userReplyBytes),
        get(set, Limit.REPLY, ClientLimits::bytes, replyBytes),
        get(set, Limit.CONNECTIONS, ClientLimits::count, connections),
        get(set, Limit.BUFFER, ClientLimits::bytes, bufferBytes),
        get(set, Limit.USER_JOBS, ClientLimits::bytes, userJobBytes),
        get(set, Limit.JOBS, ClientLimits::bytes, jobBytes),
        get(set, Limit.STALL, ClientLimits::duration, stall),
        get(set, Limit.IDLE, ClientLimits::duration, idle));
  }

  private static <T> T get(
      Map<Limit, String> set, Limit limit, Function<String, T> parse, T current) {
    String value = set.get(limit);
    if (value == null) {
      return current;
    }
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(limit.setting + ": " + e.getMessage(), e);
    }
  }

  /**
   * What one connection holds besides its requests and replies: its 4 KiB read buffer, its channel,
   * selection key and account entry (an estimate with room).
   */
  public static final int CONNECTION_BYTES = 8 << 10;

  /**
   * The client socket's budget: all users' requests and unread replies together, and what the open
   * connections hold themselves; one selector thread.
   */
  public Budget budget() {
    return new Budget(
        "client socket (local users)",
        describe(Limit.FRAME)
            + " a request; a user "
            + describe(Limit.USER_CONNECTIONS)
            + ", "
            + describe(Limit.USER_BUFFER)
            + ", "
            + describe(Limit.USER_REPLIES)
            + "; in all "
            + describe(Limit.CONNECTIONS)
            + " (each "
            + Sizes.readable(CONNECTION_BYTES)
            + "), "
            + describe(Limit.BUFFER),
        bufferBytes + (long) connections * CONNECTION_BYTES,
        1);
  }

  /** The jobs' budget: what all users' jobs may take of the server's state. */
  public Budget jobsBudget() {
    return new Budget(
        "jobs in the server's state (qsub, qalter)",
        describe(Limit.USER_JOBS) + " a user, " + describe(Limit.JOBS) + " in all",
        jobBytes,
        0);
  }

  /** The limit as a setting, {@code user_buffer=64 MiB}, for log lines and errors. */
  public String describe(Limit limit) {
    String value =
        switch (limit) {
          case FRAME -> Sizes.readable(frameBytes);
          case USER_CONNECTIONS -> Integer.toString(userConnections);
          case USER_REQUESTS -> Integer.toString(userRequests);
          case USER_BUFFER -> Sizes.readable(userBufferBytes);
          case USER_REPLIES -> Sizes.readable(userReplyBytes);
          case REPLY -> Sizes.readable(replyBytes);
          case CONNECTIONS -> Integer.toString(connections);
          case BUFFER -> Sizes.readable(bufferBytes);
          case USER_JOBS -> Sizes.readable(userJobBytes);
          case JOBS -> Sizes.readable(jobBytes);
          case STALL -> seconds(stall);
          case IDLE -> seconds(idle);
        };
    return limit.setting + "=" + value;
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static final Pattern BYTES =
      Pattern.compile("(\\d+)\\s*([kmg])?(?:i?b)?", Pattern.CASE_INSENSITIVE);
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|min|m)?");

  /** {@code 65536}, {@code 64k}, {@code 64M}, {@code 1GiB} (binary units, as -Xmx reads them). */
  static long bytes(String value) {
    Matcher m = BYTES.matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + value + "' is not a size such as 64M or 65536");
    }
    long n = Long.parseLong(m.group(1));
    int shift =
        m.group(2) == null
            ? 0
            : switch (Character.toLowerCase(m.group(2).charAt(0))) {
              case 'k' -> 10;
              case 'm' -> 20;
              default -> 30;
            };
    if (n == 0 || n > Long.MAX_VALUE >> shift) {
      throw new IllegalArgumentException("'" + value + "' is out of range");
    }
    return n << shift;
  }

  /** {@code 500ms}, {@code 60s} or {@code 60}, {@code 5min} or {@code 5m}. */
  static Duration duration(String value) {
    Matcher m = DURATION.matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + value + "' is not a time such as 60s or 500ms");
    }
    long n = Long.parseLong(m.group(1));
    if (n == 0) {
      throw new IllegalArgumentException("a time of 0 would close every connection at once");
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      default -> Duration.ofMinutes(n);
    };
  }

  private static int count(String value) {
    int n;
    try {
      n = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + value + "' is not a whole number");
    }
    if (n <= 0) {
      throw new IllegalArgumentException("'" + value + "' must be at least 1");
    }
    return n;
  }
}

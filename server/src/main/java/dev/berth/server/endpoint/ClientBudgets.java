package dev.berth.server.endpoint;

import dev.berth.server.endpoint.ClientLimits.Limit;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the clients of each user, and of all users together, hold of the server: connections,
 * requests being worked on, and bytes of requests and replies. A check that fails names the limit
 * it hit. Root and the server's own user are trusted: they count against nothing but their own byte
 * budgets (which keep a runaway script of theirs from filling the heap), so that other users cannot
 * use up what they need to put things right. Selector thread only, but for {@link #open}.
 */
final class ClientBudgets {
  private final ClientLimits limits;
  private final Set<String> trusted;
  private final Map<String, Account> accounts = new HashMap<>();
  private int connections;
  private volatile int open;
  private long bytes;
  private boolean freed;

  /**
   * @param trusted the trusted users (root, the server's own user)
   */
  ClientBudgets(ClientLimits limits, Set<String> trusted) {
    this.limits = limits;
    this.trusted = trusted;
  }

  /** The limit that keeps {@code user} from opening another connection, or null. */
  Limit refusal(String user) {
    if (trusted.contains(user)) {
      return null;
    }
    Account a = accounts.get(user);
    if (a != null && a.connections >= limits.userConnections()) {
      return Limit.USER_CONNECTIONS;
    }
    return connections >= limits.connections() ? Limit.CONNECTIONS : null;
  }

  /** Counts a new connection of {@code user} (after {@link #refusal} said it may). */
  Account connect(String user) {
    Account a = accounts.computeIfAbsent(user, u -> new Account(u, trusted.contains(u)));
    a.connections++;
    open++;
    if (!a.trusted) {
      connections++;
    }
    return a;
  }

  /** Every user's connections; any thread may read it (for the metrics). */
  int open() {
    return open;
  }

  /** Connections of users other than root and the server's own user. */
  int connections() {
    return connections;
  }

  /** Request and reply bytes held for users other than root and the server's own user. */
  long bytes() {
    return bytes;
  }

  /** Whether anything was given back since the last call: throttled connections may go on. */
  boolean takeFreed() {
    boolean f = freed;
    freed = false;
    return f;
  }

  /** What the clients of one user hold. */
  final class Account {
    private final String user;
    private final boolean trusted;
    private int connections;
    private int requests;
    private long requestBytes;
    private long replyBytes;

    private Account(String user, boolean trusted) {
      this.user = user;
      this.trusted = trusted;
    }

    String user() {
      return user;
    }

    int connections() {
      return connections;
    }

    int requests() {
      return requests;
    }

    long requestBytes() {
      return requestBytes;
    }

    long replyBytes() {
      return replyBytes;
    }

    /** Takes {@code n} more bytes for reading requests, or names the limit that forbids it. */
    Limit takeRequestBytes(long n) {
      if (requestBytes + n > limits.userBufferBytes()) {
        return Limit.USER_BUFFER;
      }
      if (!trusted && bytes + n > limits.bufferBytes()) {
        return Limit.BUFFER;
      }
      holdRequestBytes(n);
      return null;
    }

    /** Counts {@code n} bytes of requests that are already in memory (a frame just read). */
    void holdRequestBytes(long n) {
      requestBytes += n;
      count(n);
    }

    void releaseRequestBytes(long n) {
      requestBytes -= n;
      count(-n);
    }

    /**
     * Starts a request, or names the limit that keeps it waiting: too many of this user's requests
     * in progress, or too many bytes of replies that its clients have not read.
     */
    Limit startRequest() {
      if (!trusted && requests >= limits.userRequests()) {
        return Limit.USER_REQUESTS;
      }
      if (replyBytes >= limits.userReplyBytes()) {
        return Limit.USER_REPLIES;
      }
      if (!trusted && bytes >= limits.bufferBytes()) {
        return Limit.BUFFER;
      }
      requests++;
      return null;
    }

    void finishRequest() {
      requests--;
      released();
    }

    /** Counts a reply that is in memory until its client reads it. */
    void holdReply(long n) {
      replyBytes += n;
      count(n);
    }

    void releaseReply(long n) {
      replyBytes -= n;
      count(-n);
    }

    /** A connection of this user closed (after giving back its bytes). */
    void disconnect() {
      connections--;
      open--;
      if (!trusted) {
        ClientBudgets.this.connections--;
      }
      released();
    }

    private void count(long n) {
      if (!trusted) {
        bytes += n;
      }
      if (n < 0) {
        released();
      }
    }

    private void released() {
      freed = true;
      if (connections == 0 && requests == 0 && requestBytes == 0 && replyBytes == 0) {
        accounts.remove(user);
      }
    }
  }
}

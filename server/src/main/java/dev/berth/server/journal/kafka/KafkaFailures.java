package dev.berth.server.journal.kafka;

import javax.net.ssl.SSLException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * What a Kafka client's failure means for an administrator, in one line: which brokers, what went
 * wrong, and what to do. Kafka's own messages name neither the brokers nor the cure, and its stack
 * traces bury both.
 */
public final class KafkaFailures {
  private KafkaFailures() {}

  /** {@code doing} says what failed ("cannot open the journal topic t"). */
  public static String explain(String doing, Brokers brokers, Throwable failure) {
    // Kafka's messages may span lines (a PKIX path, a nested cause); a log line must not.
    return (doing + " at " + brokers + ": " + reason(failure)).replaceAll("\\s*\\R\\s*", " ");
  }

  private static String reason(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof SaslAuthenticationException) {
        return "the brokers refused the SASL login ("
            + c.getMessage()
            + "); check sasl.* in the client config";
      }
      if (c instanceof SslAuthenticationException || c instanceof SSLException) {
        return "the TLS handshake failed ("
            + innermost(c).getMessage()
            + "); the brokers and this server must hold certificates of CAs the other trusts,"
            + " the broker's must name the host connected to, and the port must be a TLS"
            + " listener that asks for client certificates";
      }
      if (c instanceof TransactionalIdAuthorizationException) {
        return "the brokers do not let this server use its transactional id: an ACL must allow"
            + " this server's principal WRITE and DESCRIBE on it (docs/security.md)";
      }
      if (c instanceof TopicAuthorizationException) {
        return "the brokers do not let this server use the topic: an ACL must allow this"
            + " server's principal CREATE, DESCRIBE, READ and WRITE on it (docs/security.md)";
      }
      if (c instanceof AuthorizationException) {
        return "the brokers refused: " + c.getMessage() + " (Kafka ACLs, see docs/security.md)";
      }
      if (c instanceof TimeoutException) {
        return "no answer in time ("
            + c.getMessage()
            + "); are the brokers running and reachable, and is the port a listener of the"
            + " kind this server connects to (TLS or plaintext)?";
      }
    }
    Throwable root = innermost(failure);
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  private static Throwable innermost(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }
}

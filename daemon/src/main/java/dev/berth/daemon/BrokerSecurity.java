package dev.berth.daemon;

import dev.berth.security.pki.Credential;
import dev.berth.server.journal.kafka.CredentialTls;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on the broker {@code berth kafka start} runs: every listener (clients, the
 * controller, the broker's own connections) is TLS with the broker's credential and requires a
 * client certificate of the cluster's CA; every server certificate ({@code OU=server}) is the one
 * principal {@value #SERVER}, every broker certificate the super user {@value #BROKER}; and the
 * servers may use the journal topics ({@value #TOPICS}*) and transactional ids ({@value
 * #TRANSACTIONAL_IDS}*), nothing else. Anyone else (a mom's certificate included) may do nothing:
 * no ACL, no access.
 */
final class BrokerSecurity {
  static final String SERVER = "User:berth-server";
  static final String BROKER = "User:berth-broker";
  static final String TOPICS = "berth-";
  static final String TRANSACTIONAL_IDS = JournalSpec.TRANSACTIONAL_ID_PREFIX;

  /**
   * Certificates of Berth's CA name {@code CN=NAME,OU=ROLE,O=berth} (RFC 2253 order). Names hold no
   * commas, so {@code [^,]+} cannot reach into the next attribute.
   */
  static final String PRINCIPAL_MAPPING =
      "RULE:^CN=[^,]+,OU=server,O=berth$/berth-server/,"
          + "RULE:^CN=[^,]+,OU=broker,O=berth$/berth-broker/,"
          + "DEFAULT";

  private BrokerSecurity() {}

  /** The broker settings for TLS on every listener, the principals and the authorizer. */
  static Map<String, String> settings(Credential credential, List<String> listeners) {
    Map<String, String> p = new HashMap<>(CredentialTls.settings(credential));
    StringBuilder map = new StringBuilder();
    for (String listener : listeners) {
      map.append(map.isEmpty() ? "" : ",").append(listener).append(":SSL");
    }
    p.put("listener.security.protocol.map", map.toString());
    p.put("ssl.client.auth", "required");
    p.put("ssl.principal.mapping.rules", PRINCIPAL_MAPPING);
    p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    // The broker's own principal must be a super user, or it cannot register with its controller.
    p.put("super.users", BROKER);
    p.put("allow.everyone.if.no.acl.found", "false");
    return p;
  }

  /** What the servers may do: the journal topics and the writers' transactional ids. */
  static List<AclBinding> acls() {
    return List.of(
        allow(ResourceType.TOPIC, TOPICS, AclOperation.CREATE),
        allow(ResourceType.TOPIC, TOPICS, AclOperation.DESCRIBE),
        allow(ResourceType.TOPIC, TOPICS, AclOperation.READ),
        allow(ResourceType.TOPIC, TOPICS, AclOperation.WRITE),
        allow(ResourceType.TRANSACTIONAL_ID, TRANSACTIONAL_IDS, AclOperation.DESCRIBE),
        allow(ResourceType.TRANSACTIONAL_ID, TRANSACTIONAL_IDS, AclOperation.WRITE));
  }

  private static AclBinding allow(ResourceType type, String prefix, AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, prefix, PatternType.PREFIXED),
        new AccessControlEntry(SERVER, "*", operation, AclPermissionType.ALLOW));
  }

  /** Grants {@link #acls()} through the broker at {@code bootstrap}, as the broker itself. */
  static void grant(String bootstrap, Credential broker) throws ExecutionException {
    Properties p = new Properties();
    p.putAll(CredentialTls.settings(broker));
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      admin.createAcls(acls()).all().get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ExecutionException("interrupted while granting the servers' ACLs", e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new ExecutionException("the broker did not take the servers' ACLs within 60 s", e);
    }
  }
}

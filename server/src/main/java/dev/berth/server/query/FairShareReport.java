package dev.berth.server.query;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.FairShareEntry;
import dev.berth.proto.FairShareList;
import dev.berth.proto.StatFairShare;
import dev.berth.scheduler.FairShare;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.state.ClusterState;
import java.util.Set;
import java.util.TreeSet;

/**
 * pbsfs's answer: each account's and user's shares, decayed usage and fair-share factor now, as
 * sshare shows them. Users see their own line; operators, and everyone when query_other_jobs is on,
 * see every line, accounts included.
 */
final class FairShareReport {
  private FairShareReport() {}

  static FairShareList of(ClusterState s, Caller caller, StatFairShare q, long nowMillis) {
    FairShare f = ServerAttributes.fairShare(s, nowMillis);
    FairShareList.Builder list = FairShareList.newBuilder().setHalfLife(s.halfLife());
    boolean everyone = Permissions.maySeeAllUsage(s, caller);
    if (everyone && q.getUsersCount() == 0) {
      for (String account :
          names(s.accountUsage().keySet(), ServerAttributeNames.FAIRSHARE_ACCOUNT, s)) {
        list.addAccounts(entry(f.accounts(), account));
      }
    }
    Set<String> users =
        q.getUsersCount() > 0
            ? new TreeSet<>(q.getUsersList())
            : everyone
                ? names(s.userUsage().keySet(), ServerAttributeNames.FAIRSHARE_USER, s)
                : Set.of(caller.user());
    for (String user : users) {
      if (Permissions.maySeeUsage(s, caller, user)) {
        list.addUsers(entry(f.users(), user));
      }
    }
    return list.build();
  }

  /** The names with usage or shares set. */
  private static Set<String> names(Set<String> charged, String sharesAttribute, ClusterState s) {
    Set<String> names = new TreeSet<>(charged);
    String prefix = sharesAttribute + ".";
    s.serverAttributes()
        .subMap(prefix, prefix + Character.MAX_VALUE)
        .keySet()
        .forEach(key -> names.add(key.substring(prefix.length())));
    return names;
  }

  private static FairShareEntry entry(FairShare.Level level, String name) {
    return FairShareEntry.newBuilder()
        .setName(name)
        .setRawShares(level.shares(name))
        .setNormShares(level.normalizedShares(name))
        .setRawUsage(level.usage(name))
        .setEffectiveUsage(level.effectiveUsage(name))
        .setFactor(level.factor(name))
        .build();
  }
}

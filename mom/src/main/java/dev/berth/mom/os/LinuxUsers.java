package dev.berth.mom.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Users and groups through getent and id, so that whatever NSS serves (files, LDAP, SSSD) is what
 * jobs run as, exactly as the node's login would see it.
 */
public final class LinuxUsers implements Users {
  @Override
  public Optional<UserInfo> user(String name) {
    if (!name.matches("[A-Za-z0-9_.][A-Za-z0-9_.\\-]*\\$?")) {
      return Optional.empty();
    }
    Optional<String> line = run("getent", "passwd", name);
    if (line.isEmpty()) {
      return Optional.empty();
    }
    String[] f = line.get().split(":", -1);
    if (f.length < 7) {
      return Optional.empty();
    }
    List<Integer> groups = new ArrayList<>();
    run("id", "-G", name)
        .ifPresent(
            ids -> {
              for (String g : ids.trim().split("\\s+")) {
                groups.add(Integer.parseInt(g));
              }
            });
    return Optional.of(
        new UserInfo(f[0], Integer.parseInt(f[2]), Integer.parseInt(f[3]), f[5], f[6], groups));
  }

  @Override
  public Optional<Integer> groupId(String group) {
    if (!group.matches("[A-Za-z0-9_.][A-Za-z0-9_.\\-]*")) {
      return Optional.empty();
    }
    return run("getent", "group", group).map(line -> Integer.parseInt(line.split(":", -1)[2]));
  }

  @Override
  public String self() {
    return System.getProperty("user.name");
  }

  private static Optional<String> run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return Optional.empty();
      }
      String text = new String(out, StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? Optional.empty() : Optional.of(text.lines().findFirst().orElse(""));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}

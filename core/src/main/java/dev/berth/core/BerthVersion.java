package dev.berth.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Berth's version: the build's project version, which Maven writes into this module's
 * version.properties. Every command, daemon and attribute that shows a version shows this one
 * number, each in its own frame ({@code berth --version}, Torque's {@code Version:}, {@code
 * pbs_version}, a job's {@code PBS_VERSION}), so they cannot disagree.
 */
public final class BerthVersion {
  /** The version number, e.g. {@code 0.1.0} or {@code 0.2.0-SNAPSHOT}. */
  public static final String NUMBER = load();

  private BerthVersion() {}

  /** What {@code berth --version} and the daemons print: {@code Berth 0.1.0}. */
  public static String named() {
    return "Berth " + NUMBER;
  }

  /** A job's {@code PBS_VERSION}, as Torque's {@code TORQUE-6.1.2}: {@code Berth-0.1.0}. */
  public static String jobVariable() {
    return "Berth-" + NUMBER;
  }

  private static String load() {
    try (InputStream in = BerthVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException("this build of berth-core has no version.properties");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version");
      if (version == null || version.isBlank() || version.contains("${")) {
        throw new IllegalStateException("berth-core's version.properties names no version");
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

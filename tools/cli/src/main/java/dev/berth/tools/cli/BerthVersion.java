package dev.berth.tools.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Berth's version, from the pom.properties Maven puts into the jar; "unknown" outside a jar. */
final class BerthVersion {
  private static final String POM_PROPERTIES = "/META-INF/maven/dev.berth/berth-cli/pom.properties";

  private BerthVersion() {}

  static String current() {
    try (InputStream in = BerthVersion.class.getResourceAsStream(POM_PROPERTIES)) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}

package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.JobState;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The server's and a mom's Prometheus endpoints, scraped with curl as Prometheus would, with a
 * monitor credential: the job and node metrics move as a job of an unprivileged user starts and
 * ends. And nobody else reads them: not a user without a credential, not over plain HTTP, not a
 * daemon's credential, not a monitor credential of another CA; a peer that sends nothing is cut.
 */
@Tag("integration")
class MonitoringIT {
  static final String USER = TestUsers.ALICE;
  static final String ATTACKER = TestUsers.BOB;
  static final Duration LONG = Duration.ofSeconds(90);
  static final Pattern METRICS_AT = Pattern.compile("berth: metrics at (\\S+):(\\d+)/metrics");

  static MultiNodeCluster cluster;
  static Path work;
  static Path monitor;
  static String server;
  static String mom;

  /** The server's and the mom's samples before any job ran. */
  static final Map<String, Double> firstScrape = new TreeMap<>();

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER, ATTACKER);
    work = MultiNodeCluster.workFor(USER, "berth-monitoring-");
    // the endpoint's request time, short here so that cutting a silent peer takes seconds (the
    // daemon's own bound is 10 s; a site may set these JDK properties itself, as here)
    cluster =
        MultiNodeCluster.start(
            List.of("-Dsun.net.httpserver.maxReqTime=2", "-Dsun.net.httpserver.clockTick=500"),
            "--metrics-port",
            "0");
    cluster.startMom("a", "0-1", "--metrics-port", "0");
    cluster.qmgr("set server cgroup_enable = True");
    monitor = cluster.home.resolve("credentials/monitor-prometheus");
    CertificateAuthority.load(cluster.home.resolve("credentials/ca"), Clock.systemUTC())
        .issue(new Identity(Role.MONITOR, "prometheus"), List.of(), Duration.ofDays(1), monitor);
    server = address(cluster.server.log());
    mom = address(cluster.momLog("a"));
    firstScrape.putAll(scrape(server));
    firstScrape.putAll(scrape(mom));
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
  }

  private static String address(String log) {
    Matcher m = METRICS_AT.matcher(log);
    if (!m.find()) {
      fail("no metrics endpoint in the log: " + log);
    }
    return m.group(1) + ":" + m.group(2);
  }

  /**
   * curl as {@code user} (root when null) at {@code url} with {@code more} options. Server
   * certificates name no host, so curl is told not to check it (-k); the client certificate is what
   * is checked here.
   */
  private static TestCluster.Result curl(String user, String url, String... more) {
    List<String> argv = new ArrayList<>();
    if (user != null) {
      argv.addAll(List.of("runuser", "-u", user, "--"));
    }
    argv.addAll(List.of("curl", "-sS", "-k", "--max-time", "30"));
    argv.addAll(List.of(more));
    argv.add(url);
    return TestCluster.exec(work, argv);
  }

  private static String[] credential(Path dir) {
    return new String[] {
      "--cert", dir.resolve("cert.pem").toString(), "--key", dir.resolve("key.pem").toString()
    };
  }

  /** Every sample of an endpoint, by name and labels as exposed: {@code name{a="b"}}. */
  private static Map<String, Double> scrape(String at) {
    TestCluster.Result r = curl(null, "https://" + at + "/metrics", credential(monitor));
    assertEquals(0, r.exit(), "scrape " + at + ": " + r);
    Map<String, Double> samples = new TreeMap<>();
    for (String line : r.out().split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
    }
    return samples;
  }

  private static double value(Map<String, Double> samples, String sample) {
    return samples.getOrDefault(sample, 0.0);
  }

  private static void awaitSample(String at, String sample, double expected) {
    MultiNodeCluster.awaitTrue(
        () -> value(scrape(at), sample) == expected,
        LONG,
        () -> sample + " never became " + expected + ": " + scrape(at));
  }

  @Test
  void jobAndNodeMetricsMoveAsAJobRunsAndEnds() throws Exception {
    Map<String, Double> before = scrape(server);
    Map<String, Double> momBefore = scrape(mom);
    Path go = work.resolve("go");
    String id =
        cluster.submitAs(
            USER, work, "while [ ! -e " + go + " ]; do sleep 0.1; done\n", "-N", "metered");
    cluster.await(id, j -> j.getStartTime() > 0, LONG);

    Map<String, Double> running = scrape(server);
    assertEquals(
        1.0, value(running, "berth_jobs{queue=\"batch\",state=\"running\"}"), "" + running);
    assertEquals(1.0, value(running, "berth_node_cpus_allocated{node=\"a\"}"));
    assertEquals(2.0, value(running, "berth_node_cpus{node=\"a\"}"));
    assertEquals(
        value(before, "berth_jobs_submitted_total{queue=\"batch\"}") + 1,
        value(running, "berth_jobs_submitted_total{queue=\"batch\"}"));
    assertTrue(
        value(running, "berth_client_request_seconds_count{request=\"submit\"}")
            > value(before, "berth_client_request_seconds_count{request=\"submit\"}"));
    assertTrue(
        value(running, "berth_journal_commit_seconds_count")
            > value(before, "berth_journal_commit_seconds_count"));
    assertTrue(value(running, "berth_journal_batch_events_sum") > 0);
    assertTrue(value(running, "berth_scheduler_cycle_seconds_count") > 0);
    assertEquals(1.0, value(running, "berth_nodes{state=\"free\"}"), "1 of its 2 CPUs is free");

    Map<String, Double> momRunning = scrape(mom);
    assertEquals(1.0, value(momRunning, "berth_mom_jobs{node=\"a\"}"), "" + momRunning);
    assertEquals(
        value(momBefore, "berth_mom_cgroup_setup_seconds_count{node=\"a\"}") + 1,
        value(momRunning, "berth_mom_cgroup_setup_seconds_count{node=\"a\"}"));
    assertTrue(value(momRunning, "jvm_memory_used_bytes{area=\"heap\"}") > 0);

    MultiNodeCluster.runAs(USER, work, "touch", go.toString());
    cluster.await(id, j -> j.getState() == JobState.COMPLETED, LONG);
    Map<String, Double> ended = scrape(server);
    assertEquals(0.0, value(ended, "berth_jobs{queue=\"batch\",state=\"running\"}"));
    assertEquals(0.0, value(ended, "berth_node_cpus_allocated{node=\"a\"}"));
    assertEquals(
        value(before, "berth_jobs_completed_total{queue=\"batch\",result=\"succeeded\"}") + 1,
        value(ended, "berth_jobs_completed_total{queue=\"batch\",result=\"succeeded\"}"));
    awaitSample(mom, "berth_mom_jobs{node=\"a\"}", 0.0);
    awaitSample(
        mom,
        "berth_mom_cgroup_teardown_seconds_count{node=\"a\",step=\"remove\"}",
        value(momBefore, "berth_mom_cgroup_teardown_seconds_count{node=\"a\",step=\"remove\"}")
            + 1);
    assertEquals(
        value(momBefore, "berth_mom_cgroup_teardown_seconds_count{node=\"a\",step=\"stop\"}") + 1,
        value(scrape(mom), "berth_mom_cgroup_teardown_seconds_count{node=\"a\",step=\"stop\"}"));
  }

  /**
   * Every series the dashboard shipped in ops/monitoring draws is there on a fresh cluster: a
   * series that appeared only with its first event left four panels showing "No data".
   */
  @Test
  void everySeriesTheDashboardDrawsIsThereBeforeTheFirstJob() throws IOException {
    String dashboard =
        Files.readString(TestCluster.ROOT.resolve("ops/monitoring/grafana-dashboard.json"));
    Set<String> drawn = new TreeSet<>();
    Matcher name = Pattern.compile("berth_[a-z_]+").matcher(dashboard);
    while (name.find()) {
      drawn.add(name.group());
    }
    Set<String> scraped = new TreeSet<>();
    for (String sample : firstScrape.keySet()) {
      int labels = sample.indexOf('{');
      scraped.add(labels < 0 ? sample : sample.substring(0, labels));
    }
    assertTrue(drawn.size() >= 20, "the dashboard's series: " + drawn);
    Set<String> missing = new TreeSet<>(drawn);
    missing.removeAll(scraped);
    assertEquals(Set.of(), missing, "not in the first scrape: " + firstScrape.keySet());
  }

  @Test
  void onlyAMonitorCredentialOfTheClustersCaReadsTheMetrics() throws Exception {
    for (String at : List.of(server, mom)) {
      TestCluster.Result noCredential = curl(ATTACKER, "https://" + at + "/metrics");
      assertNotEquals(0, noCredential.exit(), "a user without a credential: " + noCredential);
      assertFalse(noCredential.out().contains("berth_"), noCredential.out());

      TestCluster.Result plain = curl(ATTACKER, "http://" + at + "/metrics");
      assertFalse(plain.out().contains("berth_"), "plain HTTP: " + plain);

      TestCluster.Result daemon =
          curl(
              null,
              "https://" + at + "/metrics",
              "-o",
              "/dev/null",
              "-w",
              "%{http_code}",
              "--cert",
              cluster.home.resolve("credentials/mom-a/cert.pem").toString(),
              "--key",
              cluster.home.resolve("credentials/mom-a/key.pem").toString());
      assertEquals("403", daemon.out().trim(), "a mom's credential is no monitor's: " + daemon);
    }

    // A monitor credential the attacker made with a CA of their own
    Path forged = MultiNodeCluster.workFor(ATTACKER, "berth-forged-");
    try {
      Path ca = forged.resolve("ca");
      CertificateAuthority.create(ca, "berth it", Duration.ofDays(1), Clock.systemUTC())
          .issue(
              new Identity(Role.MONITOR, "prometheus"),
              List.of(),
              Duration.ofDays(1),
              forged.resolve("monitor"));
      TestCluster.exec(forged, List.of("chown", "-R", ATTACKER, forged.toString()));
      TestCluster.Result r =
          curl(ATTACKER, "https://" + server + "/metrics", credential(forged.resolve("monitor")));
      assertNotEquals(0, r.exit(), "a monitor credential of another CA: " + r);
      assertFalse(r.out().contains("berth_"), r.out());
    } finally {
      JobFiles.removeTree(forged);
    }
  }

  @Test
  void aPeerThatSendsNothingIsCut() throws Exception {
    String[] hostPort = server.split(":");
    try (Socket idle = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
      idle.setSoTimeout(60_000);
      long start = System.nanoTime();
      try (InputStream in = idle.getInputStream()) {
        assertEquals(-1, in.read(), "the endpoint closes the connection");
      } catch (IOException reset) {
        // cut at TCP: what a peer that sent nothing gets
      }
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertTrue(seconds < 10, "cut after " + seconds + " s");
    }
    assertTrue(scrape(server).containsKey("berth_client_connections"), "and it still serves");
  }

  /** The request time is one deadline for the TLS handshake too, not a time between reads. */
  @Test
  void aPeerThatSendsAByteNowAndThenIsCutAtTheRequestTime() throws Exception {
    String[] hostPort = server.split(":");
    try (Socket slow = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
      slow.setSoTimeout(500);
      long start = System.nanoTime();
      OutputStream out = slow.getOutputStream();
      out.write(new byte[] {0x16, 0x03, 0x01, 0x40, 0x00}); // a TLS record of 16 KiB is coming
      boolean cut = false;
      while (!cut && System.nanoTime() - start < 60e9) {
        try {
          out.write(1); // one byte of it every half second
          out.flush();
          cut = slow.getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException quiet) {
          // nothing said yet: the next byte
        } catch (IOException gone) {
          cut = true;
        }
      }
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertTrue(cut && seconds < 10, "cut after " + seconds + " s: " + cut);
    }
  }
}

package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Attribute;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.proto.SubmitJob;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The journal keeps its promise: a job id the server handed out survives a SIGKILL of the server,
 * and a damaged journal stops the server with a report instead of being shortened silently.
 */
@Tag("integration")
class DurabilityIT {
  Path home;
  ServerProcess server;

  @BeforeEach
  void setUp() throws IOException {
    home = Files.createTempDirectory(Path.of("/tmp"), "berth-durability-");
    server = new ServerProcess(home);
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
    JobFiles.removeTree(home);
  }

  /** Starts the server; the first start also defines a node (no mom) so jobs are feasible. */
  private void startServer() throws Exception {
    assertTrue(server.start(), server.log());
    TestCluster.allowRootJobs(server.socket);
    try (BerthClient c = BerthClient.connect(server.socket)) {
      boolean hasNode =
          c.call(Request.newBuilder().setStatNodes(dev.berth.proto.StatNodes.getDefaultInstance()))
                  .getNodes()
                  .getNodesCount()
              > 0;
      if (!hasNode) {
        Response r =
            c.call(
                Request.newBuilder()
                    .setManage(
                        Manage.newBuilder()
                            .setCommand(Manage.Command.CREATE)
                            .setObjectType(Manage.ObjectType.NODE)
                            .addNames("n1")
                            .addAttributes(Attribute.newBuilder().setName("np").setValue("4"))));
        assertFalse(r.hasError(), r.toString());
      }
    }
  }

  @Test
  void everyAcknowledgedJobSurvivesASigkillInTheMiddleOfSubmissions() throws Exception {
    startServer();
    ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
    AtomicReference<String> refused = new AtomicReference<>();
    List<Thread> clients = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      Thread thread = new Thread(() -> submitUntilTheServerDies(acknowledged, refused));
      thread.start();
      clients.add(thread);
    }
    while (acknowledged.size() < 2000) {
      TestCluster.sleep(20);
    }
    server.kill9();
    for (Thread thread : clients) {
      thread.join(30_000);
    }
    assertEquals(null, refused.get(), "no submission was refused while the server ran");

    assertTrue(server.start(), server.log());
    List<Job> jobs = allJobs();
    Set<String> ids = new HashSet<>();
    for (Job j : jobs) {
      assertTrue(ids.add(j.getId()), "job " + j.getId() + " exists once");
      assertEquals(JobState.QUEUED, j.getState(), j.getId());
      assertEquals("durable", j.getName());
      assertTrue(j.getCtime() > 0 && !j.getOwner().isEmpty(), "complete record: " + j);
    }
    List<String> missing = acknowledged.stream().filter(id -> !ids.contains(id)).toList();
    assertTrue(missing.isEmpty(), missing.size() + " acknowledged jobs were lost: " + missing);
    long highest = jobs.stream().mapToLong(Job::getNumber).max().orElse(0);
    String next = submit(BerthClient.connect(server.socket)).getSubmitted().getJobId();
    assertTrue(Long.parseLong(next.substring(0, next.indexOf('.'))) > highest, next);
  }

  private void submitUntilTheServerDies(
      ConcurrentLinkedQueue<String> acknowledged, AtomicReference<String> refused) {
    try (BerthClient client = BerthClient.connect(server.socket)) {
      while (true) {
        Response r = submit(client);
        if (r.hasError()) {
          refused.compareAndSet(null, r.getError().getMessage());
          return;
        }
        acknowledged.add(r.getSubmitted().getJobId());
      }
    } catch (ServerUnavailableException e) {
      // the server was killed: this client's last submission has no answer, which is allowed
    }
  }

  @Test
  void aTruncatedJournalTailStopsTheServerUntilAnAdministratorRecovers() throws Exception {
    fillAndKill(300);
    Path log = newestWriteAheadLog();
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      f.setLength(f.length() - 100);
    }
    assertFalse(server.start(), "the server must refuse a damaged journal");
    assertTrue(server.log().contains("berth journal recover"), server.log());
    assertTrue(server.log().contains("truncated"), server.log());

    TestCluster.Result check = berth("journal", "check");
    assertEquals(1, check.exit(), check.toString());
    TestCluster.Result recover = berth("journal", "recover");
    assertEquals(0, recover.exit(), recover.toString());
    assertTrue(recover.out().contains("holds"), recover.out());

    assertTrue(server.start(), server.log());
    int kept = allJobs().size();
    assertTrue(kept > 0 && kept < 300, "the intact prefix is kept, the cut tail is not: " + kept);
  }

  @Test
  void aFlippedByteInTheJournalIsDetected() throws Exception {
    fillAndKill(300);
    Path log = newestWriteAheadLog();
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      long middle = f.length() / 2;
      f.seek(middle);
      int b = f.read();
      f.seek(middle);
      f.write(b ^ 0x5a);
    }
    assertFalse(server.start(), "the server must refuse a damaged journal");
    assertTrue(server.log().contains("checksum mismatch"), server.log());
  }

  private void fillAndKill(int jobs) throws Exception {
    startServer();
    try (BerthClient client = BerthClient.connect(server.socket)) {
      for (int i = 0; i < jobs; i++) {
        assertFalse(submit(client).hasError());
      }
    }
    server.kill9();
  }

  private Path newestWriteAheadLog() throws IOException {
    try (Stream<Path> files = Files.list(home.resolve("journal"))) {
      return files
          .filter(p -> p.toString().endsWith(".log"))
          .max(Comparator.comparing(p -> p.getFileName().toString()))
          .orElseThrow();
    }
  }

  private TestCluster.Result berth(String... args) {
    List<String> argv =
        new ArrayList<>(List.of(TestCluster.ROOT.resolve("ops/bin/berth").toString()));
    argv.addAll(List.of(args));
    argv.addAll(List.of("--home", home.toString()));
    return TestCluster.exec(home, argv);
  }

  private List<Job> allJobs() throws ServerUnavailableException {
    try (BerthClient c = BerthClient.connect(server.socket)) {
      return c.call(Request.newBuilder().setStatJobs(StatJobs.getDefaultInstance()))
          .getJobs()
          .getJobsList();
    }
  }

  private static Response submit(BerthClient client) throws ServerUnavailableException {
    return client.call(
        Request.newBuilder()
            .setSubmit(
                SubmitJob.newBuilder()
                    .addAttributes(Attribute.newBuilder().setName("Job_Name").setValue("durable"))
                    .addAttributes(
                        Attribute.newBuilder()
                            .setName("Variable_List")
                            .setValue("PBS_O_WORKDIR=/tmp"))
                    .setScript(ByteString.copyFromUtf8("true\n"))));
  }
}

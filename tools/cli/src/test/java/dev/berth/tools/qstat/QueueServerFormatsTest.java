package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Queue;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.ServerStatus;
import dev.berth.tools.format.AttrText;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueServerFormatsTest {
  static QueueStatus batch() {
    return QueueStatus.newBuilder()
        .setQueue(
            Queue.newBuilder()
                .setName("batch")
                .putAttributes("queue_type", "Execution")
                .putAttributes("max_running", "10")
                .putAttributes("enabled", "True")
                .putAttributes("started", "True")
                .putAttributes("resources_max.walltime", "24:00:00")
                .putAttributes("resources_default.nodes", "1"))
        .putStateCount("Q", 1)
        .putStateCount("R", 1)
        .putStateCount("H", 1)
        .setTotalJobs(3)
        .build();
  }

  static QueueStatus gpu() {
    return QueueStatus.newBuilder()
        .setQueue(
            Queue.newBuilder()
                .setName("gpu")
                .putAttributes("queue_type", "e")
                .putAttributes("max_running", "10")
                .putAttributes("resources_max.mem", "16gb")
                .putAttributes("resources_max.nodect", "4"))
        .build();
  }

  @Test
  void queueTable() {
    assertEquals(
        "Queue              Max    Tot   Ena   Str   Que   Run   Hld   Wat   Trn   Ext T   Cpt\n"
            + "----------------   ---   ----    --    --   ---   ---   ---   ---   ---   --- -   ---\n",
        QueueFormats.header());
    assertEquals(
        "batch               10      3   yes   yes     1     1     1     0     0     0 E     0\n",
        QueueFormats.row(batch()));
    assertEquals(
        "nodefq               0      0    no    no     0     0     0     0     0     0 not defined     0\n",
        QueueFormats.row(
            QueueStatus.newBuilder().setQueue(Queue.newBuilder().setName("nodefq")).build()),
        "Torque prints 'not defined' for a queue without a type");
  }

  @Test
  void alternateQueueListing() {
    assertEquals(
        "\nserver: srv\n\n"
            + "Queue            Memory CPU Time Walltime Node  Run Que Lm  State\n"
            + "---------------- ------ -------- -------- ----  --- --- --  -----\n"
            + "batch              --      --    24:00:00   --    1   2 10   E R\n"
            + "gpu                16gb    --       --        4   0   0 10   D S\n"
            + "                                               ----- -----\n"
            + "                                                   1     2\n",
        QueueFormats.alternate("srv", List.of(batch(), gpu()), SizeUnit.AS_GIVEN));
  }

  @Test
  void fullQueueListing() {
    assertEquals(
        "Queue: batch\n"
            + "    queue_type = Execution\n"
            + "    total_jobs = 3\n"
            // Torque folds this long comma-free value too: "Comp" / "lete:0".
            + "    state_count = Transit:0 Queued:1 Held:1 Waiting:0 Running:1 Exiting:0 Comp\n"
            + "\tlete:0 \n"
            + "    max_running = 10\n"
            + "    resources_default.nodes = 1\n"
            + "    resources_max.walltime = 24:00:00\n"
            + "    enabled = True\n"
            + "    started = True\n"
            + "\n",
        AttrText.block(
            "Queue: batch", QueueFormats.attributes(batch()), ZoneOffset.UTC, AttrText.LINESIZE));
  }

  static ServerStatus server() {
    return ServerStatus.newBuilder()
        .setName("srv")
        .putAttributes("scheduling", "True")
        .putAttributes("default_queue", "batch")
        .putAttributes("keep_completed", "300")
        .putStateCount("Q", 1)
        .putStateCount("R", 2)
        .putStateCount("C", 1)
        .setTotalJobs(4)
        .build();
  }

  @Test
  void serverTableAndFullListing() {
    assertEquals(
        "Server             Max   Tot   Que   Run   Hld   Wat   Trn   Ext   Com Status    \n"
            + "----------------   ---   ---   ---   ---   ---   ---   ---   ---   --- ----------\n",
        ServerFormats.header());
    assertEquals(
        "srv                  0     4     1     2     0     0     0     0     1 Active    \n",
        ServerFormats.row(server()));
    assertEquals(
        "Server: srv\n"
            + "    server_state = Active\n"
            + "    scheduling = True\n"
            + "    total_jobs = 4\n"
            + "    state_count = Transit:0 Queued:1 Held:0 Waiting:0 Running:2 Exiting:0 Comp\n"
            + "\tlete:1 \n"
            + "    default_queue = batch\n"
            + "    keep_completed = 300\n"
            + "\n",
        AttrText.block("Server: srv", ServerFormats.attributes(server()), ZoneOffset.UTC, 77));
  }
}

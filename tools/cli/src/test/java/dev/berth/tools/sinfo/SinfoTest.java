package dev.berth.tools.sinfo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Node;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueList;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.tools.testing.Run;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** sinfo: queues as partitions, nodes in Slurm's states, in Slurm 22.05's layouts. */
class SinfoTest {
  private static NodeStatus node(String name, String state, int cpus, int used) {
    NodeStatus.Builder n =
        NodeStatus.newBuilder()
            .setNode(
                Node.newBuilder()
                    .setName(name)
                    .addAllCpuIds(java.util.stream.IntStream.range(0, cpus).boxed().toList()))
            .setState(state);
    for (int c = 0; c < used; c++) {
      n.addJobs(NodeJobSlot.newBuilder().setCpu(c).setJobId("1.srv"));
    }
    return n.build();
  }

  private static QueueStatus queue(String name, String... attributes) {
    Queue.Builder q = Queue.newBuilder().setName(name);
    for (int i = 0; i < attributes.length; i += 2) {
      q.putAttributes(attributes[i], attributes[i + 1]);
    }
    return QueueStatus.newBuilder().setQueue(q).build();
  }

  private final FakeServer server =
      new FakeServer(
          r ->
              switch (r.getBodyCase()) {
                case STAT_QUEUES ->
                    Response.newBuilder()
                        .setQueues(
                            QueueList.newBuilder()
                                .addQueues(queue("batch", "enabled", "True", "started", "True"))
                                .addQueues(
                                    queue(
                                        "long",
                                        "enabled",
                                        "True",
                                        "started",
                                        "False",
                                        "resources_max.walltime",
                                        "48:00:00"))
                                .addQueues(queue("R7", "enabled", "True", "started", "True")))
                        .build();
                case STAT_NODES ->
                    Response.newBuilder()
                        .setNodes(
                            NodeList.newBuilder()
                                .addNodes(node("n01", "free", 2, 0))
                                .addNodes(node("n02", "free", 2, 0))
                                .addNodes(node("n03", "free", 2, 1))
                                .addNodes(node("n04", "offline", 2, 0)))
                        .build();
                case STAT_RESERVATIONS ->
                    Response.newBuilder()
                        .setReservations(
                            ReservationList.newBuilder()
                                .addReservations(
                                    ReservationStatus.newBuilder()
                                        .setReservation(
                                            Reservation.newBuilder()
                                                .setQueue("R7")
                                                .addNodes("n02"))))
                        .build();
                case STAT_SERVER ->
                    Response.newBuilder()
                        .setServer(
                            ServerStatus.newBuilder().putAttributes("default_queue", "batch"))
                        .build();
                default -> FakeServer.ack();
              });

  private Run sinfo(String... args) {
    return Run.of(Sinfo::run, server, Map.of("TZ", "UTC"), "sinfo", args);
  }

  @Test
  void partitionsAndNodeStatesInSlurmsLayout() {
    Run r = sinfo();
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            + "batch*       up   infinite      2   idle n[01-02]\n"
            + "batch*       up   infinite      1    mix n03\n"
            + "batch*       up   infinite      1  drain n04\n"
            + "long       down 2-00:00:00      2   idle n[01-02]\n"
            + "long       down 2-00:00:00      1    mix n03\n"
            + "long       down 2-00:00:00      1  drain n04\n"
            + "R7           up   infinite      1   idle n02\n",
        r.out());
  }

  @Test
  void summaryNodesAndFilters() {
    assertEquals(
        "batch*       up   infinite          1/2/1/4  n[01-04]\n",
        sinfo("-h", "-s", "-p", "batch").out());
    assertEquals(
        "batch*       up   infinite      1    mix n03\n",
        sinfo("-h", "-p", "batch", "-t", "mix").out());
    assertEquals("PARTITION\nbatch*\nlong\nR7\n", sinfo("-o", "%P").out());
    assertEquals(
        "batch*|up|4|1/5/2/8\nR7|up|1|0/2/0/2\n",
        sinfo("-h", "-p", "batch,R7", "-o", "%P|%a|%D|%C").out());
    assertEquals(
        "batch idle n[01-02]\nbatch mixed n03\nbatch drained n04\n",
        sinfo("-h", "-p", "batch", "-o", "%R %T %N").out());
    assertEquals(1, sinfo("-o", "%Z").status());
  }
}

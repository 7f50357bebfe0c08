package dev.berth.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.server.command.job.JobBudget;
import dev.berth.server.endpoint.ClientLimits.Limit;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientLimitsTest {
  private static final long HEAP = 2L << 30;

  @Test
  void theDefaultsGiveClientsAnEighthOfTheHeap() {
    ClientLimits d = ClientLimits.defaults(HEAP);
    assertEquals(16 << 20, d.frameBytes());
    assertEquals(64, d.userConnections());
    assertEquals(16, d.userRequests());
    assertEquals(64L << 20, d.userBufferBytes());
    assertEquals(64L << 20, d.userReplyBytes());
    assertEquals(32L << 20, d.replyBytes(), "a sixty-fourth of the heap");
    assertEquals(4096, d.connections());
    assertEquals(256L << 20, d.bufferBytes(), "an eighth");
    assertEquals(128L << 20, d.userJobBytes(), "a sixteenth of the heap for one user's jobs");
    assertEquals(512L << 20, d.jobBytes(), "a quarter for all jobs");
    assertEquals(new JobBudget(128L << 20, 512L << 20), d.jobBudget());
    assertEquals(Duration.ofSeconds(60), d.stall());
    assertEquals(Duration.ofMinutes(5), d.idle());
  }

  @Test
  void theEnvironmentOverridesSomeLimitsAndKeepsTheRest() {
    ClientLimits l =
        ClientLimits.fromEnvironment(
            Map.of(
                "BERTH_CLIENT_LIMITS",
                " user_connections=8, user_buffer=1MiB,buffer=3g,stall=500ms,idle=2min,frame=64k,"
                    + "user_jobs=1g,jobs=6g"),
            HEAP);
    assertEquals(8, l.userConnections());
    assertEquals(1L << 20, l.userBufferBytes());
    assertEquals(3L << 30, l.bufferBytes());
    assertEquals(Duration.ofMillis(500), l.stall());
    assertEquals(Duration.ofMinutes(2), l.idle());
    assertEquals(64 << 10, l.frameBytes());
    assertEquals(1L << 30, l.userJobBytes());
    assertEquals(6L << 30, l.jobBytes());
    assertEquals(16, l.userRequests(), "not set: the default");
    assertEquals(ClientLimits.defaults(HEAP), ClientLimits.fromEnvironment(Map.of(), HEAP));
  }

  @Test
  void sizesAndTimesReadAsAdministratorsWriteThem() {
    assertEquals(65536, ClientLimits.bytes("65536"));
    assertEquals(64 << 10, ClientLimits.bytes("64K"));
    assertEquals(64 << 20, ClientLimits.bytes("64 MiB"));
    assertEquals(1L << 30, ClientLimits.bytes("1gb"));
    assertEquals(Duration.ofSeconds(60), ClientLimits.duration("60"));
    assertEquals(Duration.ofSeconds(60), ClientLimits.duration("60s"));
    assertEquals(Duration.ofMinutes(5), ClientLimits.duration("5m"));
  }

  @Test
  void aBadSettingNamesTheVariableTheLimitAndTheValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ClientLimits.fromEnvironment(
                    Map.of("BERTH_CLIENT_LIMITS", "user_buffer=lots"), HEAP));
    assertEquals(
        "BERTH_CLIENT_LIMITS: user_buffer: 'lots' is not a size such as 64M or 65536",
        e.getMessage());
    assertEquals(
        "unknown client limit 'users'; the limits are frame, user_connections, user_requests,"
            + " user_buffer, user_replies, reply, connections, buffer, user_jobs, jobs, stall, idle",
        assertThrows(IllegalArgumentException.class, () -> limits().with("users=3")).getMessage());
    assertThrows(IllegalArgumentException.class, () -> limits().with("user_requests=0"));
    assertThrows(IllegalArgumentException.class, () -> limits().with("stall=0s"));
    assertThrows(IllegalArgumentException.class, () -> limits().with("user_buffer=0"));
    assertThrows(IllegalArgumentException.class, () -> limits().with("stall"));
    assertEquals(
        "user_buffer (16 MiB) must hold two of the largest requests (frame=16 MiB)",
        assertThrows(IllegalArgumentException.class, () -> limits().with("user_buffer=16M"))
            .getMessage());
  }

  @Test
  void aSmallHeapStillLetsTwoOfTheLargestRequestsIn() {
    assertEquals(32L << 20, ClientLimits.defaults(64L << 20).bufferBytes());
  }

  @Test
  void aReplyMayTakeNoMoreThanClientsRead() {
    assertEquals(16L << 20, ClientLimits.defaults(256L << 20).replyBytes(), "at least 16 MiB");
    assertEquals(128L << 20, ClientLimits.defaults(8L << 30).replyBytes());
    assertEquals(512L << 20, ClientLimits.defaults(64L << 30).replyBytes(), "what clients read");
    assertEquals(1L << 20, limits().with("reply=1m").replyBytes());
    assertEquals(
        "reply (1024 MiB) may be at most 512 MiB, the largest reply the clients read",
        assertThrows(IllegalArgumentException.class, () -> limits().with("reply=1g")).getMessage());
  }

  @Test
  void aLimitDescribesItselfAsItsSetting() {
    ClientLimits l = limits().with("user_buffer=64M,stall=1500ms");
    assertEquals("user_buffer=64 MiB", l.describe(Limit.USER_BUFFER));
    assertEquals("user_jobs=128 MiB", limits().describe(Limit.USER_JOBS));
    assertEquals("user_connections=64", l.describe(Limit.USER_CONNECTIONS));
    assertEquals("stall=1500ms", l.describe(Limit.STALL));
    assertEquals("idle=300s", l.describe(Limit.IDLE));
  }

  private static ClientLimits limits() {
    return ClientLimits.defaults(HEAP);
  }
}

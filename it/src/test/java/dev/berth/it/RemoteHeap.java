package dev.berth.it;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/** The heap of another JVM on this host (a server process), read through the attach API. */
final class RemoteHeap implements AutoCloseable {
  private final JMXConnector connector;
  private final MBeanServerConnection mbeans;

  private RemoteHeap(JMXConnector connector) throws IOException {
    this.connector = connector;
    this.mbeans = connector.getMBeanServerConnection();
  }

  static RemoteHeap attach(long pid) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
    try {
      return new RemoteHeap(
          JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent())));
    } finally {
      vm.detach();
    }
  }

  /** The largest heap it may grow to (-Xmx). */
  long max() throws IOException {
    return memory().getHeapMemoryUsage().getMax();
  }

  /** A -XX flag's value, {@code "true"} for a boolean one that is on. */
  String flag(String name) throws IOException {
    return ManagementFactory.getPlatformMXBean(mbeans, HotSpotDiagnosticMXBean.class)
        .getVMOption(name)
        .getValue();
  }

  void resetPeak() throws IOException {
    for (MemoryPoolMXBean pool : heapPools()) {
      pool.resetPeakUsage();
    }
  }

  /**
   * The heap's peak use since {@link #resetPeak}: the sum of each heap pool's peak, which is at
   * least the true peak (the pools need not peak together).
   */
  long peak() throws IOException {
    long sum = 0;
    for (MemoryPoolMXBean pool : heapPools()) {
      sum += pool.getPeakUsage().getUsed();
    }
    return sum;
  }

  /**
   * The old generation's peak use since {@link #resetPeak}: where the collector puts every large
   * array (G1's humongous regions), so a reply built whole would show here.
   */
  long oldGenerationPeak() throws IOException {
    long sum = 0;
    for (MemoryPoolMXBean pool : heapPools()) {
      if (pool.getName().contains("Old Gen") || pool.getName().contains("Tenured")) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /** What is in use once a full collection has run: what the process really keeps. */
  long liveAfterGc() throws IOException {
    memory().gc();
    return memory().getHeapMemoryUsage().getUsed();
  }

  private MemoryMXBean memory() throws IOException {
    return ManagementFactory.getPlatformMXBean(mbeans, MemoryMXBean.class);
  }

  private List<MemoryPoolMXBean> heapPools() throws IOException {
    return ManagementFactory.getPlatformMXBeans(mbeans, MemoryPoolMXBean.class).stream()
        .filter(p -> p.getType() == MemoryType.HEAP)
        .toList();
  }

  @Override
  public void close() throws IOException {
    connector.close();
  }
}

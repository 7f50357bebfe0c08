package dev.berth.security.cluster;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.dispatch.Envelope;
import org.apache.pekko.dispatch.MailboxType;
import org.apache.pekko.dispatch.MessageQueue;
import org.apache.pekko.dispatch.ProducesMessageQueue;
import org.apache.pekko.dispatch.UnboundedMailbox;
import org.apache.pekko.io.Inet;
import org.apache.pekko.io.Tcp;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The mailbox of Pekko's TCP manager in a Berth daemon: it adds the cluster port's guard ({@link
 * ClusterPortGuard}) to every listener the actor system binds, which is Artery's cluster port.
 * Pekko gives Artery's listener no socket options of its own and no other place to see each
 * accepted socket; a listener's options, though, are applied to each socket it accepts, before
 * Pekko does anything else with it.
 */
public final class ClusterPortMailbox
    implements MailboxType, ProducesMessageQueue<UnboundedMailbox.MessageQueue> {
  private final Inet.SocketOption guard;

  /** Made by Pekko, which hands in the settings holding the guard ({@link ClusterPort}). */
  public ClusterPortMailbox(ActorSystem.Settings settings, Config config) {
    this.guard =
        settings
            .setup()
            .get(ClusterPort.Guarded.class)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the cluster port's mailbox needs an actor system made by ClusterPort"))
            .guard()
            .option();
  }

  @Override
  public MessageQueue create(Option<ActorRef> owner, Option<ActorSystem> system) {
    return new UnboundedMailbox.MessageQueue() {
      @Override
      public void enqueue(ActorRef receiver, Envelope handle) {
        super.enqueue(
            receiver,
            handle.message() instanceof Tcp.Bind bind
                ? handle.copy(guarded(bind), handle.sender())
                : handle);
      }
    };
  }

  private Tcp.Bind guarded(Tcp.Bind bind) {
    List<Inet.SocketOption> options = new ArrayList<>();
    CollectionConverters.asJava(bind.options()).forEach(options::add);
    options.add(guard);
    return bind.copy(
        bind.handler(),
        bind.localAddress(),
        bind.backlog(),
        CollectionConverters.asScala(options).toList(),
        bind.pullMode());
  }
}

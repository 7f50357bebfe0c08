package dev.berth.mom.terminal;

import java.net.InetSocketAddress;
import javax.net.ssl.SSLContext;

/**
 * Where a mom takes interactive sessions: the address its terminal port binds (port 0: any free
 * one; the mom tells the server which) and the mom's TLS credential.
 */
public record TerminalSettings(InetSocketAddress bind, SSLContext tls) {}

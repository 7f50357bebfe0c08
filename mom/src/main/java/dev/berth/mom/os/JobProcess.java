package dev.berth.mom.os;

import java.util.concurrent.CompletableFuture;

/**
 * A running starter: its pid (the job's session id), when it started, and a future that completes
 * when it has exited.
 */
public record JobProcess(long pid, long startMillis, CompletableFuture<Void> exited) {}

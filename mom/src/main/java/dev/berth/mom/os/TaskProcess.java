package dev.berth.mom.os;

import java.io.InputStream;
import java.io.OutputStream;

/** A task started with pipes: its starter, and the task's stdin, stdout and stderr. */
public record TaskProcess(
    JobProcess process, OutputStream stdin, InputStream stdout, InputStream stderr) {}

package dev.berth.mom.os.gpu;

/** What one GPU was doing when the driver was asked: utilisation (percent) and memory in use. */
public record GpuSample(int percent, long memoryBytes) {}

package dev.berth.daemon.image;

import java.util.List;

/** An image as a layered source holds it: its layers, bottom first, and its config. */
record LayeredImage(List<Layer> layers, ImageConfig config) {}

package org.capsched.yarn.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for daemons that bind them later, chosen below the kernel's ephemeral range.
 * A port found by binding port 0 is an ephemeral one, and any outgoing connection may be
 * given it before the daemon binds it. An HA standby binds its client ports only when it
 * becomes active, tens of seconds and hundreds of connections after its configuration was
 * written (HaFailoverIT's standby once failed to take over with "Address already in use").
 * The kernel never hands out a port below the range on its own.
 */
final class Ports {
  /** Where the kernel's ephemeral range starts when it cannot be read. */
  private static final int DEFAULT_EPHEMERAL_LOW = 32768;
  /** The lowest port tried: clear of the well-known and most registered daemons' ports. */
  private static final int LOWEST = 10000;

  private Ports() {
  }

  /** {@code n} distinct free ports below the ephemeral range, each held until all are found. */
  static List<Integer> free(int n) throws IOException {
    int high = ephemeralLow();
    int span = high - LOWEST;
    if (span < n) {
      throw new IOException("no room for " + n + " ports between " + LOWEST + " and the "
          + "ephemeral range starting at " + high);
    }
    List<ServerSocket> held = new ArrayList<>();
    try {
      List<Integer> out = new ArrayList<>();
      int start = ThreadLocalRandom.current().nextInt(span);
      for (int i = 0; i < span && out.size() < n; i++) {
        int port = LOWEST + (start + i) % span;
        try {
          held.add(new ServerSocket(port));
          out.add(port);
        } catch (IOException taken) {
          // In use (or still closing): the next one.
        }
      }
      if (out.size() < n) {
        throw new IOException("only " + out.size() + " of " + n + " ports free between "
            + LOWEST + " and " + high);
      }
      return out;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  /** The first port of Linux's ephemeral range (net.ipv4.ip_local_port_range). */
  private static int ephemeralLow() {
    // One buffered read: a sysctl file read a byte at a time (as Files.readAllBytes starts
    // on a file whose size says 0) can end after its first byte.
    try (BufferedReader range = Files.newBufferedReader(
        Paths.get("/proc/sys/net/ipv4/ip_local_port_range"), StandardCharsets.US_ASCII)) {
      String line = range.readLine();
      int low = line == null
          ? DEFAULT_EPHEMERAL_LOW : Integer.parseInt(line.trim().split("\\s+")[0]);
      return low > LOWEST ? low : DEFAULT_EPHEMERAL_LOW;
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }
}

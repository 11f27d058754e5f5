package com.example.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The audit trail: segments of audit records, written out by a flusher thread of their own. A segment
 * whose target is a directory (left by an old rotation) makes the write fail; nothing catches it, so the
 * thread dies with the JVM's default report, 'Exception in thread "audit-flusher-N" ...'.
 */
public class AuditTrail {
    private final Random rnd;
    private final Path dir;
    private int flushers;

    public AuditTrail(Random rnd, Path home) throws IOException {
        this.rnd = rnd;
        this.dir = Files.createDirectories(home.resolve("audit"));
        try (var old = Files.walk(dir)) {  // segments of an earlier start
            old.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> p.toFile().delete());
        }
    }

    public void flush() throws InterruptedException, IOException {
        int n = 1 + rnd.nextInt(4);
        int bad = rnd.nextInt(n);
        Flusher flusher = new Flusher(++flushers);
        for (int i = 0; i < n; i++) {
            Path target = dir.resolve(String.format("segment-%05d.log", 100 * flushers + i));
            if (i == bad) {
                Files.createDirectories(target);
            }
            flusher.add(target, 1 + rnd.nextInt(500));
        }
        Thread t = flusher.start();
        t.join();
    }

    final class Flusher {
        private final int id;
        private final List<Segment> segments = new ArrayList<>();

        Flusher(int id) {
            this.id = id;
        }

        void add(Path target, int records) {
            segments.add(new Segment(target, records));
        }

        Thread start() {
            Thread t = new Thread(() -> segments.forEach(s -> s.write()), "audit-flusher-" + id);
            t.start();
            return t;
        }

        final class Segment {
            private final Path target;
            private final int records;

            Segment(Path target, int records) {
                this.target = target;
                this.records = records;
            }

            void write() {
                try {
                    Files.writeString(target, "records=" + records + "\n");
                } catch (IOException e) {
                    throw new UncheckedIOException("audit segment " + target.getFileName() + " of flusher " + id
                            + " not written (" + records + " records)", e);
                }
            }
        }
    }
}

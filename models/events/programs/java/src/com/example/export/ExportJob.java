package com.example.export;

import com.example.app.Log;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/** Nightly CSV exports (two writers per batch, try-with-resources) and the report templates they use. */
public class ExportJob {
    private static final Log log = Log.get(ExportJob.class);
    private static final String[] TEMPLATES = {"invoice.html", "daily-summary.txt", "refund-mail.html", "label.zpl",
            "partner/acme.csv", "report-weekly.md"};

    private final Random rnd;
    private final Path dir;

    public ExportJob(Random rnd, Path home) {
        this.rnd = rnd;
        this.dir = home.resolve("export");
    }

    public void runBatch() {
        long batch = 1000 + rnd.nextInt(9000);
        int rows = 1 + rnd.nextInt(400);
        boolean bothDirty = rnd.nextBoolean();
        Runnable job = new Runnable() {
            @Override
            public void run() {
                try {
                    export(batch, rows, bothDirty);
                } catch (IOException e) {
                    log.error("Export of batch " + batch + " failed", e);
                }
            }
        };
        job.run();
    }

    private void export(long batch, int rows, boolean bothDirty) throws IOException {
        try (BatchWriter orders = new BatchWriter(dir.resolve(batch + "-orders.csv"), batch, rows);
             BatchWriter lines = new BatchWriter(dir.resolve(batch + "-lines.csv"), batch, bothDirty ? rows * 3 : 0)) {
            lines.write(rows * 3);
            orders.write(rows);
        }
    }

    static final class BatchWriter implements AutoCloseable {
        private final Path path;
        private final long batch;
        private final int pending;

        BatchWriter(Path path, long batch, int pending) {
            this.path = path;
            this.batch = batch;
            this.pending = pending;
        }

        void write(int n) throws IOException {
            if (n > 0 && path.toString().endsWith("-orders.csv")) {
                throw new IOException("Export stream for batch " + batch + " truncated at byte " + (n * 217));
            }
        }

        @Override
        public void close() {
            if (pending > 0) {
                throw new IllegalStateException("Batch " + batch + " has " + pending + " unflushed rows in " + path);
            }
        }
    }

    /** Report templates may include each other; a cycle recurses until the stack is gone. */
    public void renderTemplate() {
        String name = TEMPLATES[rnd.nextInt(TEMPLATES.length)];
        Map<String, String> includes = new HashMap<>();
        includes.put(name, "header");
        includes.put("header", "footer");
        includes.put("footer", name);
        try {
            expand(includes, name, new StringBuilder());
        } catch (StackOverflowError e) {
            log.error("Cycle while expanding template " + name, e);
        }
    }

    private static void expand(Map<String, String> includes, String name, StringBuilder out) {
        out.setLength(Math.min(out.length(), 64));
        out.append('<').append(name).append('>');
        String next = includes.get(name);
        if (next != null) {
            expand(includes, next, out);
        }
    }
}

package com.example.app;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * A logback-shaped logger ("%d{yyyy-MM-dd HH:mm:ss,SSS} %-5level [%thread] %logger{36} - %msg%n"):
 * the head line, then the Throwable's own printStackTrace on the same stream (System.err).
 */
public final class Log {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");
    private static final PrintStream OUT = System.err;
    private static FileWriter marks;
    private static Path logPath;

    private final String name;

    private Log(String name) {
        this.name = name;
    }

    /** logback's %logger{36}: com.example.orders.OrderService -> c.e.orders.OrderService */
    public static Log get(Class<?> c) {
        String[] parts = c.getName().split("\\.");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) sb.append('.');
            sb.append(i < parts.length - 2 ? parts[i].substring(0, 1) : parts[i]);
        }
        return new Log(sb.toString());
    }

    public void debug(String msg) { write("DEBUG", msg, null); }
    public void info(String msg) { write("INFO", msg, null); }
    public void warn(String msg) { write("WARN", msg, null); }
    public void warn(String msg, Throwable t) { write("WARN", msg, t); }
    public void error(String msg, Throwable t) { write("ERROR", msg, t); }

    private synchronized void write(String level, String msg, Throwable t) {
        synchronized (OUT) {
            OUT.println(LocalDateTime.now().format(TS) + " " + String.format("%-5s", level) + " ["
                    + Thread.currentThread().getName() + "] " + name + " - " + msg);
            if (t != null) {
                t.printStackTrace(OUT);
            }
            OUT.flush();
        }
    }

    /** The generator's label channel: the log's size before the next event, and the event's action code. */
    public static void mark(String action) {
        try {
            if (marks == null) {
                marks = new FileWriter(System.getenv("LOGSIFT_MARKS"), true);
                logPath = Path.of(System.getenv("LOGSIFT_LOG"));
            }
            System.out.flush();
            OUT.flush();
            marks.write(Files.size(logPath) + "\t" + action + "\n");
            marks.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

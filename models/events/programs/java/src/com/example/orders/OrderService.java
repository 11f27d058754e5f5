package com.example.orders;

import com.example.app.Log;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

public class OrderService {
    private static final Log log = Log.get(OrderService.class);
    private static final String[] CUSTOMERS = {"acme-gmbh", "c-10293", "globex", "initech", "c-88120", "umbrella-ltd",
            "stark.industries", "c-4471", "wayne-ent", "hooli"};

    private final Random rnd;
    private final Path snapshots;

    public OrderService(Random rnd, Path home) {
        this.rnd = rnd;
        this.snapshots = home.resolve("data").resolve("snapshots");
    }

    private long orderId() {
        return 10000 + rnd.nextInt(90000);
    }

    public void created() {
        log.info(String.format("Order %d created for customer %s total %d.%02d EUR", orderId(),
                CUSTOMERS[rnd.nextInt(CUSTOMERS.length)], rnd.nextInt(2000), rnd.nextInt(100)));
    }

    public void closed() {
        log.info(String.format("Order %d closed in %d ms", orderId(), 3 + rnd.nextInt(900)));
    }

    public void retrying() {
        int max = 3 + rnd.nextInt(3);
        log.warn(String.format("Retrying order %d (attempt %d of %d)", orderId(), 1 + rnd.nextInt(max), max));
    }

    public void closeOrder() {
        long id = orderId();
        try {
            close(id, 1 + rnd.nextInt(4));
        } catch (OrderCloseException e) {
            log.error("Failed to close order " + id, e);
        }
    }

    private void close(long id, int parts) throws OrderCloseException {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < parts; i++) {
            files.add(snapshots.resolve(id + "-" + i + ".json"));
        }
        try {
            List<String> loaded = files.stream().map(p -> loadSnapshot(p)).collect(Collectors.toList());
            log.info("Loaded " + loaded.size() + " snapshots of order " + id);
        } catch (UncheckedIOException e) {
            throw new OrderCloseException("Cannot close order " + id + ": " + parts + " snapshot(s) expected", e);
        }
    }

    private static String loadSnapshot(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

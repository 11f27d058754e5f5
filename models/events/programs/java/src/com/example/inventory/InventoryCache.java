package com.example.inventory;

import com.example.app.Log;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;

public class InventoryCache {
    private static final Log log = Log.get(InventoryCache.class);
    private static final String[] WAREHOUSES = {"ams-1", "fra-2", "dub-1", "waw-3", "mad-1", "lhr-4"};

    private final Random rnd;
    private final Map<String, String> regions = new HashMap<>();

    public InventoryCache(Random rnd) {
        this.rnd = rnd;
        regions.put("SKU-1", "eu-west ");
        regions.put("SKU-2", " eu-central");
    }

    public void refreshed() {
        log.info(String.format("Cache refresh: %d entries, %d evicted", 500 + rnd.nextInt(20000), rnd.nextInt(300)));
    }

    /** A refresh handed to the pool with execute(): an exception reaches the thread's default handler. */
    public void refreshDetached(ExecutorService pool) throws InterruptedException {
        String sku = "SKU-" + (3 + rnd.nextInt(90000));
        AtomicReference<Thread> worker = new AtomicReference<>();
        Object started = new Object();
        synchronized (started) {
            pool.execute(new Runnable() {
                @Override
                public void run() {
                    synchronized (started) {
                        worker.set(Thread.currentThread());
                        started.notifyAll();
                    }
                    String region = regions.get(sku);
                    log.debug("region of " + sku + " is " + region.trim());
                }
            });
            while (worker.get() == null) {
                started.wait();
            }
        }
        worker.get().join();  // the worker dies after the handler printed the trace
    }

    public void syncWarehouse() {
        String wh = WAREHOUSES[rnd.nextInt(WAREHOUSES.length)];
        int n = 3 + rnd.nextInt(40);
        Shard shard = new Shard(n);
        try {
            shard.sync();
        } catch (RuntimeException e) {
            log.error("Inventory sync failed for warehouse " + wh + " (" + n + " items)", e);
        }
    }

    static final class Shard {
        private final List<Integer> items = new ArrayList<>();

        Shard(int n) {
            for (int i = 0; i < n; i++) {
                items.add(i % 3 == 0 ? 0 : i);
            }
        }

        void sync() {
            items.forEach(qty -> drop(qty));
        }

        private void drop(int qty) {
            if (qty == 0) {
                items.remove(Integer.valueOf(qty));
            }
        }
    }
}

package com.example.quotes;

import com.example.app.Log;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** Shipping quotes, computed on a small pool of named threads; the caller waits with Future.get. */
public class QuoteService {
    private static final Log log = Log.get(QuoteService.class);
    private static final String[] ZONES = {"EU-1", "EU-2", "UK", "CH", "NO", "US-EAST", "CA-QC", "IS"};

    private final Random rnd;
    private final RateCard rates = new RateCard(Map.of("EU-1", 410, "EU-2", 590, "UK", 880));
    private final AtomicInteger threads = new AtomicInteger();
    private final ExecutorService quoters = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "quote-worker-" + threads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    public QuoteService(Random rnd) {
        this.rnd = rnd;
    }

    public void quote() throws InterruptedException, TimeoutException {
        String cart = "cart-" + Integer.toHexString(0x100000 + rnd.nextInt(0xefffff));
        String zone = ZONES[3 + rnd.nextInt(ZONES.length - 3)];
        int grams = 100 + rnd.nextInt(30000);
        Future<Long> price = quoters.submit(() -> rates.price(zone, grams));
        try {
            log.info("Quote for " + cart + ": " + price.get(5, TimeUnit.SECONDS) + " cents");
        } catch (ExecutionException e) {
            log.error("Shipping quote for " + cart + " (" + grams + " g) failed", e);
        }
    }
}

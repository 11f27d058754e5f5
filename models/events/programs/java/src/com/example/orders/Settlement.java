package com.example.orders;

import com.example.app.Log;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/** Settlements computed on the common ForkJoinPool; a failure is logged from the future's callback. */
public class Settlement {
    private static final Log log = Log.get(Settlement.class);
    private final Random rnd;

    public Settlement(Random rnd) {
        this.rnd = rnd;
    }

    public void settle() {
        String merchant = "m-" + (1000 + rnd.nextInt(9000));
        int n = 2 + rnd.nextInt(6);
        CompletableFuture.supplyAsync(() -> total(n))
                .exceptionally(ex -> {
                    log.error("Settlement for merchant " + merchant + " failed", ex);
                    return -1;
                })
                .join();
    }

    private static int total(int n) {
        int sum = Integer.MAX_VALUE - n;
        for (int i = 0; i < n + 1; i++) {
            sum = Math.addExact(sum, 1 + i);
        }
        return sum;
    }
}

package com.example.shipping;

import com.example.app.Log;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Waits on a carrier's pickup slots in a dedicated thread; a redeploy of the carrier config interrupts it. */
public class CarrierPoller {
    private static final Log log = Log.get(CarrierPoller.class);
    private static final String[] CARRIERS = {"dhl-express", "ups-eu", "postnl", "gls-de", "dpd-pl", "colissimo"};

    private final Random rnd;
    private final BlockingQueue<String> slots = new LinkedBlockingQueue<>();
    private int started;

    public CarrierPoller(Random rnd) {
        this.rnd = rnd;
    }

    public void restartPoller() throws InterruptedException {
        String carrier = CARRIERS[rnd.nextInt(CARRIERS.length)];
        int timeout = 30 + rnd.nextInt(90);
        Thread poller = new Thread(() -> poll(carrier, timeout), "carrier-poller-" + (++started));
        poller.start();
        while (poller.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        poller.interrupt();  // the config reload stops the old poller
        poller.join();
    }

    private void poll(String carrier, int timeout) {
        try {
            String slot = nextSlot(timeout);
            log.info("Pickup slot " + slot + " booked with " + carrier);
        } catch (InterruptedException e) {
            log.warn("Polling carrier " + carrier + " interrupted, giving up", e);
            Thread.currentThread().interrupt();
        }
    }

    private String nextSlot(int timeout) throws InterruptedException {
        return slots.poll(timeout, TimeUnit.SECONDS);
    }
}

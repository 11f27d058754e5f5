package com.example.quotes;

import java.util.Map;

/** Shipping rates per zone; zones that no carrier serves have no rate card. */
final class RateCard {
    private final Map<String, Integer> centsPerKg;

    RateCard(Map<String, Integer> centsPerKg) {
        this.centsPerKg = centsPerKg;
    }

    long price(String zone, int grams) {
        Integer rate = centsPerKg.get(zone);
        if (rate == null) {
            throw new IllegalStateException("No rate card for zone " + zone);
        }
        return Math.multiplyExact((long) rate, grams) / 1000;
    }
}

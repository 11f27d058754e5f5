package com.example.validation;

import com.example.app.Log;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Validates orders imported from partner shops; every problem found goes into one multi-line message. */
public class OrderValidator {
    private static final Log log = Log.get(OrderValidator.class);
    private static final String[] SOURCES = {"shopify:eu-1", "magento:b2b", "csv-upload", "edi:x12-850", "api:v2"};
    private static final String[] PROBLEMS = {
        "lines[%d].quantity: must be greater than 0 (was %d)",
        "lines[%d].sku: unknown SKU 'SKU-%d'",
        "lines[%d].unitPrice: must not be null",
        "lines[%d].vatRate: 0.%d is not a rate of the shipping country",
    };

    private final Random rnd;

    public OrderValidator(Random rnd) {
        this.rnd = rnd;
    }

    public void importOrder() {
        long id = 10000 + rnd.nextInt(90000);
        String source = SOURCES[rnd.nextInt(SOURCES.length)];
        try {
            validate(id, 1 + rnd.nextInt(4));
        } catch (OrderValidationException e) {
            log.error("Rejected order " + id + " from " + source, e);
        }
    }

    private void validate(long id, int n) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String p = PROBLEMS[rnd.nextInt(PROBLEMS.length)];
            problems.add(String.format(p, rnd.nextInt(12), p.contains("quantity") ? -rnd.nextInt(5) : 100 + rnd.nextInt(900)));
        }
        if (!problems.isEmpty()) {
            throw new OrderValidationException("Order " + id + " has " + n + (n == 1 ? " problem:" : " problems:")
                    + "\n  - " + String.join("\n  - ", problems));
        }
    }
}

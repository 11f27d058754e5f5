package com.example.rpc;

import java.util.List;
import java.util.Map;
import java.util.Set;

public class OrdersRpc {
    private static final Set<String> CURRENCIES = Set.of("EUR", "USD", "GBP", "CHF");

    public Object handle(String op, Map<String, Object> req) {
        switch (op) {
            case "status": return "OPEN";
            case "list": return List.of(1, 2, 3);
            case "quote": return quote(req);
            default: throw new UnsupportedOperationException(op);
        }
    }

    private Object quote(Map<String, Object> req) {
        String currency = (String) req.get("currency");
        if (!CURRENCIES.contains(currency)) {
            throw new IllegalArgumentException("Unknown currency '" + currency + "' in request " + req.get("id"));
        }
        return 42;
    }
}

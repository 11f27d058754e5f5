package com.example.rpc;

import java.util.Map;

public class AdminRpc {
    public Object handle(String op, Map<String, Object> req) {
        switch (op) {
            case "ping": return "pong";
            case "stats": return Map.of("orders", 12);
            case "reprioritise": return reprioritise(req);
            default: throw new UnsupportedOperationException(op);
        }
    }

    private Object reprioritise(Map<String, Object> req) {
        String priority = (String) req.get("priority");
        return priority.toUpperCase();
    }
}

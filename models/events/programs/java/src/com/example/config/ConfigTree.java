package com.example.config;

import com.example.app.Log;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/** Nested settings; a dotted key is resolved one segment per recursive call. */
public class ConfigTree {
    private static final Log log = Log.get(ConfigTree.class);
    private static final String[] SEGMENTS = {"db", "pool", "replica", "timeout", "cache", "orders", "ttl", "http",
            "client", "retry", "backoff", "max", "shard", "eu-west", "limits", "read"};
    private static final String[] BAD = {"12s", "30sec", "1e3", "", " 5", "0x1F", "ten", "2147483648", "-", "1_000"};
    private static final String[] TENANTS = {"acme", "globex", "initech", "t-20931", "hooli", "t-7781"};

    private final Random rnd;
    private final Path file;

    public ConfigTree(Random rnd, Path home) {
        this.rnd = rnd;
        this.file = home.resolve("conf").resolve("app.conf");
    }

    public void loadSetting() {
        int depth = 2 + rnd.nextInt(12);
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < depth; i++) {
            if (i > 0) key.append('.');
            key.append(SEGMENTS[rnd.nextInt(SEGMENTS.length)]);
        }
        String[] parts = key.toString().split("\\.");
        Map<String, Object> root = new HashMap<>();
        Map<String, Object> node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            Map<String, Object> child = new HashMap<>();
            node.put(parts[i], child);
            node = child;
        }
        node.put(parts[parts.length - 1], BAD[rnd.nextInt(BAD.length)]);
        String tenant = TENANTS[rnd.nextInt(TENANTS.length)];
        try {
            getInt(root, key.toString());
        } catch (ConfigException e) {
            log.error("Failed to load setting " + key + " for tenant " + tenant, e);
        }
    }

    private int getInt(Map<String, Object> root, String key) throws ConfigException {
        try {
            return resolve(root, key.split("\\."), 0);
        } catch (NumberFormatException e) {
            throw new ConfigException("Invalid value for '" + key + "' in " + file, e);
        }
    }

    @SuppressWarnings("unchecked")
    private int resolve(Map<String, Object> node, String[] parts, int i) {
        Object v = node.get(parts[i]);
        if (i == parts.length - 1) {
            return Integer.parseInt((String) v);
        }
        return resolve((Map<String, Object>) v, parts, i + 1);
    }
}

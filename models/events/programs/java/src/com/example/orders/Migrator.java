package com.example.orders;

import java.nio.file.Path;
import java.util.Random;

/** Schema migration at start; a version it cannot read ends the process (uncaught in main). */
public class Migrator {
    private final Random rnd;
    private final Path db;

    public Migrator(Random rnd, Path home) {
        this.rnd = rnd;
        this.db = home.resolve("data").resolve("orders-" + (1 + rnd.nextInt(9)) + ".db");
    }

    public void migrate() {
        String stored = new String[] {"v", "r", "14-rc", "V"}[rnd.nextInt(4)] + (10 + rnd.nextInt(9));
        try {
            int version = parseVersion(stored);
            System.err.println("schema version " + version);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("Schema version '" + stored + "' of " + db + " is not supported", e);
        }
    }

    private static int parseVersion(String s) {
        return Integer.parseInt(s);
    }
}

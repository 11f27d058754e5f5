package com.example.persistence;

import com.example.app.Log;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/** Persists order lines with one batch insert; a line number written twice violates the primary key. */
public class OrderStore {
    private static final Log log = Log.get(OrderStore.class);

    private final Random rnd;
    private final Set<String> primary = new HashSet<>();

    public OrderStore(Random rnd) {
        this.rnd = rnd;
    }

    public void persist() {
        long id = 10000 + rnd.nextInt(90000);
        int lines = 2 + rnd.nextInt(6);
        int repeated = rnd.nextInt(lines - 1);
        try {
            saveLines(id, lines, repeated);
        } catch (DataAccessException e) {
            log.error("Failed to persist order " + id, e);
        }
    }

    private void saveLines(long id, int lines, int repeated) {
        LineBatch batch = new LineBatch(primary);
        for (int i = 0; i < lines; i++) {
            // a merged cart repeats one line number
            int lineNo = i == lines - 1 ? repeated + 1 : i + 1;
            batch.addBatch(id, lineNo, "SKU-" + (1000 + rnd.nextInt(90000)), 1 + rnd.nextInt(5));
        }
        try {
            batch.executeBatch();
        } catch (SQLException e) {
            throw new DataAccessException("could not execute batch; SQL [" + LineBatch.SQL + "]", e);
        }
    }
}

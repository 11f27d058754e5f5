package com.example.persistence;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A JDBC-style batch insert into order_lines over an in-memory table (primary key order_id-line_no). */
final class LineBatch {
    static final String SQL = "insert into order_lines (order_id, line_no, sku, qty) values (?, ?, ?, ?)";

    private final Set<String> primary;
    private final List<Object[]> rows = new ArrayList<>();

    LineBatch(Set<String> primary) {
        this.primary = primary;
    }

    void addBatch(long orderId, int lineNo, String sku, int qty) {
        rows.add(new Object[] {orderId, lineNo, sku, qty});
    }

    int[] executeBatch() throws BatchUpdateException {
        int[] counts = new int[rows.size()];
        Set<String> inserted = new HashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            try {
                counts[i] = insert(rows.get(i), inserted);
            } catch (SQLException e) {
                primary.removeAll(inserted);  // the transaction rolls back
                throw new BatchUpdateException(e.getMessage(), e.getSQLState(), e.getErrorCode(),
                        Arrays.copyOf(counts, i), e);
            }
        }
        return counts;
    }

    private int insert(Object[] row, Set<String> inserted) throws SQLException {
        String key = row[0] + "-" + row[1];
        if (!primary.add(key)) {
            throw new SQLIntegrityConstraintViolationException(
                    "Duplicate entry '" + key + "' for key 'order_lines.PRIMARY'", "23000", 1062);
        }
        inserted.add(key);
        return 1;
    }
}

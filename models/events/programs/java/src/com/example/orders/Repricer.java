package com.example.orders;

import com.example.app.Log;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Recomputes unit prices of an order's lines on a parallel stream; each line logs its own failure. */
public class Repricer {
    private static final Log log = Log.get(Repricer.class);
    private static final int[] EXACT = {1, 2, 4, 5, 8, 10};
    private static final int[] INEXACT = {3, 7, 9, 11};  // total / qty never terminates unless qty divides it

    private final Random rnd;

    public Repricer(Random rnd) {
        this.rnd = rnd;
    }

    static final class Line {
        final int no;
        final BigDecimal total;
        final int qty;

        Line(int no, BigDecimal total, int qty) {
            this.no = no;
            this.total = total;
            this.qty = qty;
        }
    }

    public void reprice() {
        long order = 10000 + rnd.nextInt(90000);
        int n = 3 + rnd.nextInt(10);
        int bad = rnd.nextInt(n);
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int qty = i == bad ? INEXACT[rnd.nextInt(INEXACT.length)] : EXACT[rnd.nextInt(EXACT.length)];
            long cents = 100 + rnd.nextInt(50000);
            if (i == bad && cents % qty == 0) {
                cents++;
            }
            lines.add(new Line(i + 1, BigDecimal.valueOf(cents, 2), qty));
        }
        lines.parallelStream().forEach(line -> {
            try {
                unitPrice(line);
            } catch (ArithmeticException e) {
                log.error("Cannot reprice line " + line.no + " of order " + order, e);
            }
        });
    }

    private static BigDecimal unitPrice(Line line) {
        return line.total.divide(BigDecimal.valueOf(line.qty));
    }
}

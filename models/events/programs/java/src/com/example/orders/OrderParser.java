package com.example.orders;

import com.example.app.Log;
import java.time.LocalDate;
import java.util.Random;

public class OrderParser {
    private static final Log log = Log.get(OrderParser.class);
    private final Random rnd;

    public OrderParser(Random rnd) {
        this.rnd = rnd;
    }

    public void receive() {
        String client = "10.0." + rnd.nextInt(8) + "." + (1 + rnd.nextInt(250)) + ":" + (30000 + rnd.nextInt(30000));
        String date = (2026 + rnd.nextInt(2)) + "-" + (13 + rnd.nextInt(7)) + "-" + String.format("%02d", 1 + rnd.nextInt(28));
        try {
            parse(10000 + rnd.nextInt(90000), date);
        } catch (PayloadException e) {
            log.error("Failed to parse order payload from " + client, e);
        }
    }

    private LocalDate parse(long id, String date) throws PayloadException {
        try {
            return LocalDate.parse(date);
        } catch (RuntimeException e) {
            throw new PayloadException("Bad delivery date in payload of order " + id, e);
        }
    }
}

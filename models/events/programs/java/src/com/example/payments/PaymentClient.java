package com.example.payments;

import com.example.app.Log;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;

public class PaymentClient {
    private static final Log log = Log.get(PaymentClient.class);
    private final Random rnd;

    public PaymentClient(Random rnd) {
        this.rnd = rnd;
    }

    public void slow() {
        log.warn(String.format("Payment gateway slow: %d ms for order %d", 1500 + rnd.nextInt(9000), 10000 + rnd.nextInt(90000)));
    }

    public void charge() {
        long order = 10000 + rnd.nextInt(90000);
        int port = 20000 + rnd.nextInt(9000);
        int attempts = 1 + rnd.nextInt(3);
        try {
            send(order, port, attempts);
        } catch (PaymentException e) {
            log.error("Payment request failed for order " + order + " (gateway 127.0.0.1:" + port + ")", e);
        }
    }

    private void send(long order, int port, int attempts) throws PaymentException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 250);
            s.getOutputStream().write(("CHARGE " + order + "\n").getBytes());
        } catch (IOException e) {
            throw new PaymentException("Gateway unreachable for order " + order + " after " + attempts + " attempt(s)", e);
        }
    }
}

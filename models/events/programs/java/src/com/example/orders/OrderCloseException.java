package com.example.orders;

public class OrderCloseException extends Exception {
    public OrderCloseException(String message, Throwable cause) {
        super(message, cause);
    }
}

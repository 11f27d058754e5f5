package com.example.orders;

public class PayloadException extends Exception {
    public PayloadException(String message, Throwable cause) {
        super(message, cause);
    }
}

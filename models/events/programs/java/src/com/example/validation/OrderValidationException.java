package com.example.validation;

/** One exception for all the problems of an order; its message lists them, one line each. */
public class OrderValidationException extends RuntimeException {
    public OrderValidationException(String message) {
        super(message);
    }
}

package com.example.reports;

public class ResourceException extends RuntimeException {
    public ResourceException(String message, Throwable cause) {
        super(message, cause);
    }
}

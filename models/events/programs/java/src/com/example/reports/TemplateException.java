package com.example.reports;

public class TemplateException extends RuntimeException {
    public TemplateException(String message, Throwable cause) {
        super(message, cause);
    }
}

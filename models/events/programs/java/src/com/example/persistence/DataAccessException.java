package com.example.persistence;

/** The repository's unchecked wrapper of a driver's SQLException (as data-access layers do). */
public class DataAccessException extends RuntimeException {
    public DataAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}

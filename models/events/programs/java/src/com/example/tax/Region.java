package com.example.tax;

/** Tax regions the order service knows. */
public enum Region {
    DE, AT, FR, NL, BE, PL, ES, IT
}

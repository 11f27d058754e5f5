package com.example.reports;

import com.example.app.Log;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Monthly merchant statements: a template that includes a localised footer, loaded from the deployment's
 * templates/ directory. The German footer was saved as ISO-8859-1, so reading it as UTF-8 fails four
 * layers down (MalformedInputException, UncheckedIOException, ResourceException, TemplateException).
 */
public class StatementRenderer {
    private static final Log log = Log.get(StatementRenderer.class);
    private static final String[] MONTHS = {"2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"};

    private final Random rnd;
    private final Path templates;

    public StatementRenderer(Random rnd, Path home) throws IOException {
        this.rnd = rnd;
        this.templates = home.resolve("templates");
        Files.createDirectories(templates);
        Files.write(templates.resolve("footer-de.txt"),
                "Gesch\u00e4ftsf\u00fchrer: J\u00fcrgen Stra\u00dfer\n".getBytes(StandardCharsets.ISO_8859_1));
    }

    public void monthly() {
        long merchant = 1000 + rnd.nextInt(9000);
        String month = MONTHS[rnd.nextInt(MONTHS.length)];
        try {
            render(merchant, month);
        } catch (ReportException e) {
            log.error("Statement " + month + " for merchant " + merchant + " not sent", e);
        }
    }

    private void render(long merchant, String month) {
        try {
            expand("statement.txt", "footer-de.txt");
        } catch (TemplateException e) {
            throw new ReportException("Monthly statement " + month + " of merchant " + merchant
                    + " could not be generated", e);
        }
    }

    private String expand(String template, String include) {
        try {
            return "{" + template + "}" + load(include);
        } catch (ResourceException e) {
            throw new TemplateException(template + ": include '" + include + "' failed", e);
        }
    }

    private String load(String name) {
        Path p = templates.resolve(name);
        try {
            return read(p);
        } catch (UncheckedIOException e) {
            throw new ResourceException("Cannot load template resource " + p, e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + p.getFileName() + " as UTF-8", e);
        }
    }
}

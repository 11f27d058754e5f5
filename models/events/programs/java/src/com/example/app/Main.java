package com.example.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/** java -cp classes com.example.app.Main SEED PLAN HOME: runs the plan's actions (one per line) in order. */
public final class Main {
    public static void main(String[] args) throws Exception {
        long seed = Long.parseLong(args[0]);
        List<String> plan = Files.readAllLines(Path.of(args[1]));
        Path home = Path.of(args[2]);
        App app = new App(new Random(seed), home);
        for (String action : plan) {
            if (action.isBlank()) {
                continue;
            }
            if (action.equals("T1")) {
                app.shutdown();  // the pool's threads would keep the JVM alive
                Log.mark(action);
                app.migrate();   // throws out of main: "Exception in thread "main" ..."
            }
            if (action.equals("H4")) {
                app.shutdown();
                Log.mark(action);
                app.applyTax();  // ExceptionInInitializerError out of main
            }
            Log.mark(action);
            app.run(action);
        }
        app.shutdown();
    }
}

package com.example.app;

import com.example.config.ConfigTree;
import com.example.export.ExportJob;
import com.example.inventory.InventoryCache;
import com.example.orders.Migrator;
import com.example.orders.OrderParser;
import com.example.orders.OrderService;
import com.example.orders.Settlement;
import com.example.payments.PaymentClient;
import com.example.rpc.Plugins;
import com.example.rpc.RpcServer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** The order service: every action runs on a worker of a fixed thread pool, one at a time. */
final class App {
    private final Random rnd;
    private final Path home;
    private final OrderService orders;
    private final PaymentClient payments;
    private final RpcServer rpc;
    private final ConfigTree config;
    private final ExportJob export;
    private final InventoryCache inventory;
    private final OrderParser parser;
    private final Settlement settlement;
    private ExecutorService pool;
    private int leftInPool;

    App(Random rnd, Path home) throws Exception {
        this.rnd = rnd;
        this.home = home;
        orders = new OrderService(rnd, home);
        payments = new PaymentClient(rnd);
        rpc = new RpcServer(rnd);
        config = new ConfigTree(rnd, home);
        export = new ExportJob(rnd, home);
        inventory = new InventoryCache(rnd);
        parser = new OrderParser(rnd);
        settlement = new Settlement(rnd);
        // Start-up work that differs per start: throwaway pools (pool-N numbering) and plugin probes
        // through reflection (jdk.internal.reflect.GeneratedMethodAccessorNN numbering).
        for (int i = rnd.nextInt(4); i > 0; i--) {
            Executors.newSingleThreadExecutor().shutdown();
            Executors.newFixedThreadPool(1).shutdown();
        }
        Plugins.probe(rnd.nextInt(7));
        rpc.selfTest(rnd.nextInt(30));
    }

    void run(String action) throws Exception {
        if (pool == null || leftInPool-- <= 0) {
            if (pool != null) {
                pool.shutdown();
                pool.awaitTermination(10, TimeUnit.SECONDS);
            }
            pool = Executors.newFixedThreadPool(2 + rnd.nextInt(7));
            leftInPool = 30 + rnd.nextInt(120);
        }
        if (action.equals("F7")) {
            inventory.refreshDetached(pool);  // the pool's default uncaught-exception handler prints it
            return;
        }
        pool.submit(() -> {
            dispatch(action);
            return null;
        }).get();
    }

    private void dispatch(String action) throws Exception {
        switch (action) {
            case "L1": orders.created(); break;
            case "L2": orders.closed(); break;
            case "L3": payments.slow(); break;
            case "L4": inventory.refreshed(); break;
            case "L5": rpc.serveOk(); break;
            case "L6": orders.retrying(); break;
            case "F1": orders.closeOrder(); break;
            case "F2": payments.charge(); break;
            case "F3": rpc.serveQuote(); break;
            case "F4": config.loadSetting(); break;
            case "F5": export.runBatch(); break;
            case "F6": export.renderTemplate(); break;
            case "T2": parser.receive(); break;
            case "T3": inventory.syncWarehouse(); break;
            case "T4": settlement.settle(); break;
            case "T5": rpc.serveAdmin(); break;
            default: holdout(action); break;
        }
    }

    void migrate() {
        new Migrator(rnd, home).migrate();
    }

    void shutdown() throws InterruptedException {
        if (pool != null) {
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            pool = null;
        }
    }

    // ---- holdout faults (H codes), kept below the older code so that the line numbers in its traces stay;
    // their services are made on first use, so nothing at start draws from rnd for them.

    private com.example.persistence.OrderStore store;
    private com.example.orders.Repricer repricer;
    private com.example.shipping.CarrierPoller carriers;

    private void holdout(String action) throws Exception {
        switch (action) {
            case "H1":
                if (store == null) store = new com.example.persistence.OrderStore(rnd);
                store.persist();
                break;
            case "H2":
                if (repricer == null) repricer = new com.example.orders.Repricer(rnd);
                repricer.reprice();
                break;
            case "H3":
                if (carriers == null) carriers = new com.example.shipping.CarrierPoller(rnd);
                carriers.restartPoller();
                break;
            default: finals(action); break;  // K codes, below applyTax
        }
    }

    /** The home region's VAT rate: an unknown -Dorders.tax.region fails TaxTable's initialisation (H4). */
    void applyTax() {
        String region = new String[] {"de", "EU-WEST", "Germany", "DE ", "at", "CH", "nl_NL"}[rnd.nextInt(7)];
        System.setProperty("orders.tax.region", region);
        System.err.println("tax rate " + com.example.tax.TaxTable.homeRate());
    }

    // ---- final faults (K codes), below everything else for the same reason; services made on first use.

    private com.example.validation.OrderValidator validator;
    private com.example.quotes.QuoteService quotes;
    private com.example.reports.StatementRenderer statements;
    private com.example.audit.AuditTrail audit;

    private void finals(String action) throws Exception {
        switch (action) {
            case "K1":
                if (validator == null) validator = new com.example.validation.OrderValidator(rnd);
                validator.importOrder();
                break;
            case "K2":
                if (quotes == null) quotes = new com.example.quotes.QuoteService(rnd);
                quotes.quote();
                break;
            case "K3":
                if (statements == null) statements = new com.example.reports.StatementRenderer(rnd, home);
                statements.monthly();
                break;
            case "K4":
                if (audit == null) audit = new com.example.audit.AuditTrail(rnd, home);
                audit.flush();  // the flusher thread dies: the JVM's default handler prints it
                break;
            default: throw new IllegalArgumentException("unknown action " + action);
        }
    }
}

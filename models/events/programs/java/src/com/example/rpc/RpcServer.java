package com.example.rpc;

import com.example.app.Log;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/** A tiny RPC front: "service.op" calls are dispatched to handler objects through reflection. */
public class RpcServer {
    private static final Log log = Log.get(RpcServer.class);
    private static final String[] OK_OPS = {"orders.status", "orders.list", "orders.quote", "admin.ping", "admin.stats"};
    private static final String[] BAD_CURRENCIES = {"XBT", "EURO", "usd ", "GBp", "DOGE", "", "RUR"};

    private final Random rnd;
    private final Map<String, Object> handlers = new HashMap<>();

    public RpcServer(Random rnd) {
        this.rnd = rnd;
        handlers.put("orders", new OrdersRpc());
        handlers.put("admin", new AdminRpc());
    }

    /** Start-up self test: a few calls of each handler (enough, from 16 on, for the JVM to inflate Method.invoke). */
    public void selfTest(int calls) throws RpcException {
        Map<String, Object> req = new HashMap<>();
        req.put("id", 0L);
        for (int i = 0; i < calls; i++) {
            dispatch("orders.status", req);
            dispatch("admin.ping", req);
        }
    }

    private String client() {
        return "10.1." + rnd.nextInt(4) + "." + (1 + rnd.nextInt(250));
    }

    private long callId() {
        return 100000 + rnd.nextInt(900000);
    }

    public void serveOk() throws Exception {
        String call = OK_OPS[rnd.nextInt(OK_OPS.length)];
        Map<String, Object> req = new HashMap<>();
        req.put("id", callId());
        req.put("currency", "EUR");
        log.debug("Dispatching " + call + " to " + client());
        dispatch(call, req);
    }

    public void serveQuote() {
        long id = callId();
        Map<String, Object> req = new HashMap<>();
        req.put("id", id);
        req.put("currency", BAD_CURRENCIES[rnd.nextInt(BAD_CURRENCIES.length)]);
        try {
            dispatch("orders.quote", req);
        } catch (RpcException e) {
            log.error("Unhandled error in RPC call " + id + " from " + client(), e);
        }
    }

    public void serveAdmin() {
        long id = callId();
        Map<String, Object> req = new HashMap<>();
        req.put("id", id);
        req.put("order", 10000 + rnd.nextInt(90000));
        req.put("priority", rnd.nextInt(9));
        try {
            dispatch("admin.reprioritise", req);
        } catch (RpcException e) {
            log.error("Bad attribute priority on order " + req.get("order"), e);
        }
    }

    private Object dispatch(String call, Map<String, Object> req) throws RpcException {
        String[] parts = call.split("\\.");
        Object handler = handlers.get(parts[0]);
        try {
            Method m = handler.getClass().getMethod("handle", String.class, Map.class);
            return m.invoke(handler, parts[1], req);
        } catch (InvocationTargetException | NoSuchMethodException | IllegalAccessException e) {
            throw new RpcException(call + " failed for call " + req.get("id"), e);
        }
    }
}

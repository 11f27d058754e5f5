package com.example.rpc;

import java.lang.reflect.Method;

/** Start-up probes of optional plugins through reflection (each probed method gets its own generated accessor). */
public final class Plugins {
    public int ping0() { return 0; }
    public int ping1() { return 1; }
    public int ping2() { return 2; }
    public int ping3() { return 3; }
    public int ping4() { return 4; }
    public int ping5() { return 5; }
    public int ping6() { return 6; }
    public int ping7() { return 7; }

    public static void probe(int n) throws Exception {
        Plugins p = new Plugins();
        for (int i = 0; i < n; i++) {
            Method m = Plugins.class.getMethod("ping" + i);
            for (int k = 0; k < 20; k++) {
                m.invoke(p);
            }
        }
    }
}

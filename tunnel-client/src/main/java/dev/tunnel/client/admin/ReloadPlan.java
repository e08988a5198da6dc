package dev.tunnel.client.admin;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a hot reload changes: the proxies of the new config compared by name with the running
 * ones. Added ones start, removed ones stop, changed ones (any key different) restart, and the
 * rest are left alone with every connection they carry. Keys outside {@code [[proxies]]}
 * (server address, auth, transport, web server, log) need a restart of the client: a reload
 * names them and leaves them as they are, as frpc's reload does.
 *
 * <p>Configs are compared key by key through their public fields, so a key added to
 * {@link ProxyConfig} later takes part without a change here.
 *
 * @param restartOnly top-level keys whose new values take effect only after a restart
 */
public record ReloadPlan(List<ProxyConfig> added, List<ProxyConfig> removed, List<ProxyConfig> changed,
                         List<ProxyConfig> unchanged, List<String> restartOnly) {

    public static ReloadPlan of(ClientConfig running, ClientConfig fresh) {
        Map<String, ProxyConfig> before = byName(running.activeProxies());
        Map<String, ProxyConfig> after = byName(fresh.activeProxies());
        List<ProxyConfig> added = new ArrayList<>();
        List<ProxyConfig> changed = new ArrayList<>();
        List<ProxyConfig> unchanged = new ArrayList<>();
        for (ProxyConfig p : after.values()) {
            ProxyConfig old = before.get(p.name);
            if (old == null) {
                added.add(p);
            } else if (same(old, p)) {
                unchanged.add(p);
            } else {
                changed.add(p);
            }
        }
        List<ProxyConfig> removed = before.values().stream().filter(p -> !after.containsKey(p.name)).toList();
        List<String> restartOnly = new ArrayList<>();
        for (Field f : publicFields(ClientConfig.class)) {
            if (!f.getName().equals("proxies") && !f.getName().equals("start") && !same(get(f, running), get(f, fresh))) {
                restartOnly.add(f.getName());
            }
        }
        if (!same(visitorNames(running.activeVisitors()), visitorNames(fresh.activeVisitors()))) {
            restartOnly.add("start"); // a visitor it starts or stops runs only after a restart
        }
        return new ReloadPlan(List.copyOf(added), removed, List.copyOf(changed), List.copyOf(unchanged),
                List.copyOf(restartOnly));
    }

    /** Whether the proxies stay as they are. */
    public boolean proxiesUnchanged() {
        return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    /** One line for the log and the API: "2 added (a, b), 1 removed (c), 0 changed, 97 unchanged". */
    public String summary() {
        String line = added.size() + " added" + names(added) + ", " + removed.size() + " removed" + names(removed) + ", "
                + changed.size() + " changed" + names(changed) + ", " + unchanged.size() + " unchanged";
        return restartOnly.isEmpty() ? line
                : line + "; not applied until a restart: " + String.join(", ", restartOnly);
    }

    private static String names(List<ProxyConfig> proxies) {
        return proxies.isEmpty() ? "" : " (" + String.join(", ", proxies.stream().map(p -> p.name).toList()) + ")";
    }

    private static List<String> visitorNames(List<dev.tunnel.client.config.VisitorConfig> visitors) {
        return visitors.stream().map(v -> v.name).toList();
    }

    private static Map<String, ProxyConfig> byName(List<ProxyConfig> proxies) {
        Map<String, ProxyConfig> map = new LinkedHashMap<>();
        proxies.forEach(p -> map.put(p.name, p));
        return map;
    }

    /** Deep equality of config values: public fields of config classes, lists, maps and plain values. */
    static boolean same(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.getClass() != b.getClass()) {
            return false;
        }
        if (a instanceof Collection<?> ca && b instanceof Collection<?> cb) {
            if (ca.size() != cb.size()) {
                return false;
            }
            var ia = ca.iterator();
            var ib = cb.iterator();
            while (ia.hasNext()) {
                if (!same(ia.next(), ib.next())) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
            if (!ma.keySet().equals(mb.keySet())) {
                return false;
            }
            return ma.keySet().stream().allMatch(k -> same(ma.get(k), mb.get(k)));
        }
        List<Field> fields = publicFields(a.getClass());
        if (fields.isEmpty() || a.getClass().getName().startsWith("java.")) {
            return Objects.equals(a, b);
        }
        return fields.stream().allMatch(f -> same(get(f, a), get(f, b)));
    }

    private static List<Field> publicFields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Field f : type.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                fields.add(f);
            }
        }
        return fields;
    }

    private static Object get(Field f, Object target) {
        try {
            return f.get(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}

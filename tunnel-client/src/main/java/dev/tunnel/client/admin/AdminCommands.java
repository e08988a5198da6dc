package dev.tunnel.client.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.config.ConfigException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tunnel-client status|reload|stop -c FILE}, as frpc has them: each calls the admin API of
 * the client running with FILE. Exit status 0 on success, 1 when the client cannot be reached,
 * refuses (a reload of an invalid file) or FILE is invalid.
 */
public final class AdminCommands {
    private AdminCommands() {
    }

    abstract static class AdminCommand implements Callable<Integer> {
        @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true,
                description = "Config file of the running client (its webServer table says where its admin API is).")
        private Path config;

        @Override
        public final Integer call() throws Exception {
            ClientConfig cfg;
            try {
                cfg = ClientConfig.load(config);
            } catch (ConfigException e) {
                System.err.println(e.getMessage());
                return 1;
            }
            if (!cfg.webServer.enabled()) {
                System.err.println(config + ": webServer.port is not set, so the client has no admin API to call");
                return 1;
            }
            AdminClient client = new AdminClient(cfg.webServer);
            HttpResponse<String> res;
            try {
                res = call(client);
            } catch (java.io.IOException e) {
                System.err.println(unreachable(client.base(), e));
                return 1;
            }
            if (res.statusCode() == 401) {
                System.err.println(name() + " failed: HTTP 401 from " + client.base() + ": webServer.user and"
                        + " webServer.password in " + config + " are not the running client's (it reads them when it"
                        + " starts: restart it after changing them)");
                return 1;
            }
            if (res.statusCode() != 200) {
                System.err.println(name() + " failed: HTTP " + res.statusCode() + (res.body().isBlank() ? "" : "\n" + res.body().trim()));
                return 1;
            }
            return print(res.body());
        }

        /** What to check when the admin API at {@code base} cannot be reached. */
        private String unreachable(String base, java.io.IOException e) {
            String why = e instanceof java.net.ConnectException ? "connection refused" : String.valueOf(e.getMessage());
            return "cannot reach the client's admin API at " + base + " (" + why + "): is tunnel-client running"
                    + " with " + config + ", and do webServer.addr and webServer.port in it match the running client's?";
        }

        abstract String name();

        abstract HttpResponse<String> call(AdminClient client) throws Exception;

        int print(String body) throws Exception {
            if (!body.isBlank()) {
                System.out.println(body.trim());
            }
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Prints the running client's servers and proxies and their state.")
    public static final class Status extends AdminCommand {
        @Override
        String name() {
            return "status";
        }

        /** {@code /api/servers}, or null from a client without it. */
        private JsonNode servers;

        @Override
        HttpResponse<String> call(AdminClient client) throws Exception {
            HttpResponse<String> res = client.call("GET", "/api/servers");
            servers = res.statusCode() == 200 ? new ObjectMapper().readTree(res.body()) : null;
            return client.call("GET", "/api/status");
        }

        @Override
        int print(String body) throws Exception {
            if (servers != null) {
                System.out.println("Server Status...");
                String format = "%-30s %-12s %-26s %s%n";
                System.out.printf(format, "Addr", "State", "Since", "Error");
                for (JsonNode s : servers) {
                    System.out.printf(format, s.path("addr").asText(), s.path("state").asText(),
                            s.path("since").asText(), s.path("err").asText());
                }
                System.out.println();
            }
            JsonNode byType = new ObjectMapper().readTree(body);
            System.out.println("Proxy Status...");
            for (Iterator<Map.Entry<String, JsonNode>> it = byType.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> type = it.next();
                System.out.println(type.getKey().toUpperCase(Locale.ROOT));
                String format = "%-20s %-12s %-22s %-12s %-26s %s%n";
                System.out.printf(format, "Name", "Status", "LocalAddr", "Plugin", "RemoteAddr", "Error");
                for (JsonNode p : type.getValue()) {
                    System.out.printf(format, p.path("name").asText(), p.path("status").asText(),
                            p.path("local_addr").asText(), p.path("plugin").asText(), p.path("remote_addr").asText(),
                            p.path("err").asText());
                }
                System.out.println();
            }
            return 0;
        }
    }

    @Command(name = "reload", mixinStandardHelpOptions = true,
            description = "Makes the running client re-read its config: added proxies start, removed ones stop,"
                    + " changed ones restart, the others keep their connections.")
    public static final class Reload extends AdminCommand {
        @Override
        String name() {
            return "reload";
        }

        @Override
        HttpResponse<String> call(AdminClient client) throws Exception {
            return client.call("POST", "/api/reload");
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stops the running client gracefully.")
    public static final class Stop extends AdminCommand {
        @Override
        String name() {
            return "stop";
        }

        @Override
        HttpResponse<String> call(AdminClient client) throws Exception {
            return client.call("POST", "/api/stop");
        }

        @Override
        int print(String body) {
            System.out.println("stopping");
            return 0;
        }
    }
}

package dev.tunnel.client.admin;

import dev.tunnel.web.WebServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Calls a running client's admin API, as {@code tunnel-client status|reload|stop -c FILE} do:
 * the address, port and credentials come from the same file's {@code webServer} table. Over
 * HTTPS it trusts exactly the certificate in {@code webServer.tls.certFile} (the client and the
 * command share the machine), so the host name is not checked.
 */
final class AdminClient {
    private final WebServerConfig web;
    private final HttpClient http;
    private final String base;

    AdminClient(WebServerConfig web) throws Exception {
        this.web = web;
        String host = web.addr.equals("0.0.0.0") || web.addr.equals("::") ? "127.0.0.1" : web.addr;
        if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        boolean tls = web.tls.certFile != null && !web.tls.certFile.isEmpty();
        this.base = (tls ? "https://" : "http://") + host + ":" + web.port;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (tls) {
            System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
            builder.sslContext(trusting(Path.of(web.tls.certFile)));
        }
        this.http = builder.build();
    }

    /** Sends {@code method path}; returns the answer, whatever its status. */
    HttpResponse<String> call(String method, String path) throws IOException, InterruptedException {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (!web.user.isEmpty() || !web.password.isEmpty()) {
            req.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((web.user + ":" + web.password).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    String base() {
        return base;
    }

    private static SSLContext trusting(Path certFile) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(certFile)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("web-" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }
}

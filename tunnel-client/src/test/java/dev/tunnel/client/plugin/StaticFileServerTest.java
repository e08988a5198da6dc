package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The static_file plugin over real sockets on 127.0.0.1. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StaticFileServerTest {

    private static final String SECRET = "top secret outside the root";
    private static final int BIG_SIZE = 5 * 1024 * 1024 + 123;

    private static EventLoopGroup group;
    private static HttpClient client;

    @TempDir
    Path root;
    @TempDir
    Path outside;

    private byte[] big;
    private StaticFileServer server;

    @BeforeAll
    static void startGroup() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void createTree() throws IOException {
        Files.writeString(root.resolve("hello.txt"), "hello, world\n");
        Files.createDirectories(root.resolve("sub/deeper"));
        Files.writeString(root.resolve("sub/note.md"), "# note\n");
        Files.createDirectories(root.resolve("site"));
        Files.writeString(root.resolve("site/index.html"), "<p>home</p>");
        Files.writeString(root.resolve("a b ü.txt"), "spaces and umlaut");
        Files.writeString(root.resolve("<b>&\"q\".txt"), "odd name");
        big = new byte[BIG_SIZE];
        new Random(42).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        Files.writeString(outside.resolve("secret.txt"), SECRET);
        Files.createSymbolicLink(root.resolve("escape.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("escape-dir"), outside);
    }

    @AfterEach
    void stopServer() throws IOException {
        if (server != null) {
            server.close();
        }
        // the links point out of their temp dir: removed here, JUnit's clean-up warns about each
        Files.deleteIfExists(root.resolve("escape.txt"));
        Files.deleteIfExists(root.resolve("escape-dir"));
    }

    private StaticFileServer start(String stripPrefix, String user, String password) throws InterruptedException {
        server = StaticFileServer.start(group, NioServerSocketChannel.class, root, stripPrefix, user, password);
        return server;
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.localAddress().getPort() + path);
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    @Test
    void bindsLoopbackOnly() throws Exception {
        start("", "", "");
        assertThat(server.localAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(server.localAddress().getPort()).isPositive();
    }

    @Test
    void listsDirectoriesWithEscapedNamesAndLinks() throws Exception {
        start("", "", "");
        HttpResponse<byte[]> response = get("/");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
        String html = text(response);
        assertThat(html)
                .contains("<a href=\"hello.txt\">hello.txt</a>")
                .contains("<a href=\"sub/\">sub/</a>")
                .contains("<a href=\"a%20b%20%C3%BC.txt\">a b ü.txt</a>")
                .contains("&lt;b&gt;&amp;&quot;q&quot;.txt")
                .doesNotContain("<b>&")
                .doesNotContain("../");
        assertThat(text(get("/sub/"))).contains("<a href=\"../\">../</a>", "deeper/", "note.md");
    }

    @Test
    void directoryWithoutSlashRedirectsAndIndexHtmlIsServed() throws Exception {
        start("", "", "");
        HttpResponse<byte[]> redirect = get("/site");
        assertThat(redirect.statusCode()).isEqualTo(301);
        assertThat(redirect.headers().firstValue("location")).hasValue("/site/");
        HttpResponse<byte[]> index = get("/site/");
        assertThat(index.statusCode()).isEqualTo(200);
        assertThat(text(index)).isEqualTo("<p>home</p>");
        assertThat(index.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    }

    @Test
    void largeFileArrivesIntactWithHeaders() throws Exception {
        start("", "", "");
        HttpResponse<byte[]> response = get("/big.bin");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(BIG_SIZE);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/octet-stream");
        assertThat(response.headers().firstValue("last-modified")).isPresent();
        assertThat(sha256(response.body())).isEqualTo(sha256(big));

        // Several in a row on the client's pooled keep-alive connection.
        for (int i = 0; i < 3; i++) {
            assertThat(sha256(get("/big.bin").body())).isEqualTo(sha256(big));
        }
    }

    @Test
    void textFileHasContentTypeAndBody() throws Exception {
        start("", "", "");
        HttpResponse<byte[]> response = get("/hello.txt");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(text(response)).isEqualTo("hello, world\n");
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
        assertThat(text(get("/a%20b%20%C3%BC.txt"))).isEqualTo("spaces and umlaut");
    }

    @Test
    void headSendsHeadersOnly() throws Exception {
        start("", "", "");
        try (RawHttp http = new RawHttp(server.localAddress())) {
            http.send("HEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response head = http.read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-length")).isEqualTo(String.valueOf(BIG_SIZE));
            // The connection is still in sync: no body bytes were sent after the headers.
            http.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(http.read(false).text()).isEqualTo("hello, world\n");
        }
    }

    @Test
    void requestSpanningSeveralReadsIsServed() throws Exception {
        start("", "", "");
        // Larger than the first receive buffers: the codec needs several read cycles for one request.
        String padding = "x".repeat(StaticFileServerInitializer.MAX_HEADER_SIZE - 200);
        try (RawHttp http = new RawHttp(server.localAddress())) {
            for (int i = 0; i < 3; i++) {
                http.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\nX-Pad: " + padding + "\r\n\r\n");
                assertThat(http.read(false).text()).isEqualTo("hello, world\n");
            }
        }
    }

    @Test
    void missingFileIs404() throws Exception {
        start("", "", "");
        assertThat(get("/nope.txt").statusCode()).isEqualTo(404);
        assertThat(get("/sub/nope/").statusCode()).isEqualTo(404);
    }

    @Test
    void otherMethodsAre405AndTheConnectionStaysUsable() throws Exception {
        start("", "", "");
        try (RawHttp http = new RawHttp(server.localAddress())) {
            http.send("POST /hello.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello=world"
                    + "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response post = http.read(false);
            assertThat(post.status()).isEqualTo(405);
            assertThat(post.header("allow")).isEqualTo("GET, HEAD");
            RawHttp.Response next = http.read(false);
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.text()).isEqualTo("hello, world\n");
        }
        HttpResponse<byte[]> delete = client.send(HttpRequest.newBuilder(uri("/hello.txt")).DELETE().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(delete.statusCode()).isEqualTo(405);
    }

    @Test
    void connectionCloseIsHonoured() throws Exception {
        start("", "", "");
        try (RawHttp http = new RawHttp(server.localAddress())) {
            http.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            RawHttp.Response response = http.read(false);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("connection")).isEqualToIgnoringCase("close");
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void stripPrefixServesUnderThePrefixOnly() throws Exception {
        start("static", "", "");
        assertThat(text(get("/static/hello.txt"))).isEqualTo("hello, world\n");
        assertThat(get("/static/sub/note.md").statusCode()).isEqualTo(200);
        assertThat(get("/hello.txt").statusCode()).isEqualTo(404);
        assertThat(get("/staticx/hello.txt").statusCode()).isEqualTo(404);
        assertThat(get("/").statusCode()).isEqualTo(404);
        HttpResponse<byte[]> redirect = get("/static");
        assertThat(redirect.statusCode()).isEqualTo(301);
        assertThat(redirect.headers().firstValue("location")).hasValue("/static/");
        assertThat(text(get("/static/"))).contains("hello.txt").doesNotContain("../");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/../etc/passwd",
        "/../../../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E/secret.txt",
        "/sub/..%2f..%2fetc%2fpasswd",
        "/sub/%2e%2e/%2e%2e/secret.txt",
        "/..%5c..%5csecret.txt",
        "/hello.txt%00.html",
    })
    void traversalIsRefused(String target) throws Exception {
        start("", "", "");
        RawHttp.Response response = RawHttp.get(server.localAddress(), target);
        assertThat(response.status()).isIn(403, 404);
        assertThat(response.text()).doesNotContain(SECRET).doesNotContain("root:");
    }

    @Test
    void symlinksLeavingTheRootAre404() throws Exception {
        start("", "", "");
        assertThat(RawHttp.get(server.localAddress(), "/escape.txt").status()).isEqualTo(404);
        assertThat(RawHttp.get(server.localAddress(), "/escape-dir/secret.txt").status()).isEqualTo(404);
        assertThat(RawHttp.get(server.localAddress(), "/escape-dir/").status()).isEqualTo(404);
    }

    @Test
    void malformedRequestsAre400() throws Exception {
        start("", "", "");
        assertThat(RawHttp.get(server.localAddress(), "/bad%zzescape").status()).isEqualTo(400);
        assertThat(RawHttp.get(server.localAddress(), "/%C3%28.txt").status()).isEqualTo(400);
        assertThat(RawHttp.get(server.localAddress(), "http://evil/etc/passwd").status()).isEqualTo(400);
        String longTarget = "/" + "a".repeat(StaticFileServerInitializer.MAX_INITIAL_LINE + 10);
        assertThat(RawHttp.get(server.localAddress(), longTarget).status()).isIn(400, 414);
    }

    @Test
    void basicAuthIsRequiredWhenConfigured() throws Exception {
        start("", "alice", "s3cret");
        HttpResponse<byte[]> anonymous = get("/hello.txt");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("www-authenticate")).hasValue("Basic realm=\"tunnel\"");
        assertThat(get("/hello.txt", "Authorization", basic("alice", "wrong")).statusCode()).isEqualTo(401);
        assertThat(get("/hello.txt", "Authorization", basic("alice", "s3cret2")).statusCode()).isEqualTo(401);
        assertThat(get("/hello.txt", "Authorization", "Basic !!!notbase64").statusCode()).isEqualTo(401);
        assertThat(get("/missing", "Authorization", basic("bob", "s3cret")).statusCode()).isEqualTo(401);
        HttpResponse<byte[]> ok = get("/hello.txt", "Authorization", basic("alice", "s3cret"));
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(text(ok)).isEqualTo("hello, world\n");
    }

    @Test
    void singleRangeIs206AndPastTheEndIs416() throws Exception {
        start("", "", "");
        HttpResponse<byte[]> partial = get("/big.bin", "Range", "bytes=1000-1999");
        assertThat(partial.statusCode()).isEqualTo(206);
        assertThat(partial.headers().firstValue("content-range")).hasValue("bytes 1000-1999/" + BIG_SIZE);
        assertThat(partial.body()).isEqualTo(Arrays.copyOfRange(big, 1000, 2000));

        HttpResponse<byte[]> tail = get("/big.bin", "Range", "bytes=-10");
        assertThat(tail.body()).isEqualTo(Arrays.copyOfRange(big, BIG_SIZE - 10, BIG_SIZE));

        HttpResponse<byte[]> beyond = get("/big.bin", "Range", "bytes=" + BIG_SIZE + "-");
        assertThat(beyond.statusCode()).isEqualTo(416);
        assertThat(beyond.headers().firstValue("content-range")).hasValue("bytes */" + BIG_SIZE);

        HttpResponse<byte[]> multi = get("/hello.txt", "Range", "bytes=0-1,3-4");
        assertThat(multi.statusCode()).isEqualTo(200);
        assertThat(text(multi)).isEqualTo("hello, world\n");
    }

    @Test
    void ifModifiedSinceGives304() throws Exception {
        start("", "", "");
        String lastModified = get("/hello.txt").headers().firstValue("last-modified").orElseThrow();
        HttpResponse<byte[]> notModified = get("/hello.txt", "If-Modified-Since", lastModified);
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
    }

    @Test
    void closeDropsOpenConnections() throws Exception {
        start("", "", "");
        try (RawHttp http = new RawHttp(server.localAddress())) {
            http.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(http.read(false).status()).isEqualTo(200);
            server.close();
            server = null;
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void slowReaderDoesNotStopOtherClients() throws Exception {
        start("", "", "");
        try (RawHttp slow = new RawHttp(server.localAddress())) {
            // Pipeline many requests for the big file and read none of them yet.
            slow.send("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n".repeat(20));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(sha256(get("/big.bin").body())).isEqualTo(sha256(big)));
            for (int i = 0; i < 20; i++) {
                assertThat(sha256(slow.read(false).body())).isEqualTo(sha256(big));
            }
        }
    }

    @Test
    void localPathMustBeADirectory() {
        assertThatThrownBy(() -> StaticFileServer.start(group, NioServerSocketChannel.class,
                root.resolve("hello.txt"), "", "", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("localPath " + root.resolve("hello.txt") + ": not a directory");
        assertThatThrownBy(() -> StaticFileServer.start(group, NioServerSocketChannel.class,
                root.resolve("missing"), "", "", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("localPath " + root.resolve("missing") + ": directory not found");
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}

package dev.tunnel.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a hostile caller gets from a web server: a short answer and a closed connection, never a held buffer. */
@Timeout(30)
class WebServerAttackTest {
    private EventLoopGroup group;
    private WebServer web;

    @BeforeEach
    void start() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        web = WebServer.start(new WebSettings("127.0.0.1", 0, "admin", "pw", null, null),
                new Routes().open("/healthz", r -> WebResponse.ok())
                        .change(io.netty.handler.codec.http.HttpMethod.PUT, "/api/config", r -> WebResponse.ok()),
                group, NioServerSocketChannel.class, "test");
    }

    @AfterEach
    void stop() {
        web.close();
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Sends {@code request} (then whatever {@code body} bytes the server takes) and reads until the server closes. */
    private String exchange(String request, int bodyBytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", web.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            byte[] chunk = new byte[64 * 1024];
            try {
                for (int sent = 0; sent < bodyBytes; sent += chunk.length) {
                    out.write(chunk);
                }
            } catch (java.io.IOException closedByServer) {
                // expected once the server has answered and closed
            }
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void anOversizedBodyIs413AndClosed() throws Exception {
        String answer = exchange("PUT /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic YWRtaW46cHc=\r\n"
                + "Content-Length: 4194304\r\nConnection: close\r\n\r\n", 4 * 1024 * 1024);
        assertThat(answer).startsWith("HTTP/1.1 413");
    }

    @Test
    void aHugeHeaderIsRefusedAndClosed() throws Exception {
        String answer = exchange("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Junk: " + "a".repeat(64 * 1024)
                + "\r\n\r\n", 0);
        assertThat(answer).matches("(?s)HTTP/1.1 4\\d\\d .*");
        assertThat(answer).doesNotStartWith("HTTP/1.1 200");
    }

    @Test
    void garbageIs400AndClosed() throws Exception {
        String answer = exchange("\u0016\u0003\u0001 not http at all\r\n\r\n", 0);
        assertThat(answer).startsWith("HTTP/1.1 400");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        String answer = exchange("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 0);
        assertThat(answer.split("HTTP/1.1 ")).extracting(s -> s.length() >= 3 ? s.substring(0, 3) : s)
                .containsExactly("", "200", "401", "200");
    }
}

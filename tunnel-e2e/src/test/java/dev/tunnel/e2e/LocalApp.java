package dev.tunnel.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local app scripted by the test: every accepted connection is handed to the handler on its
 * own daemon thread. Sockets are closed when the app closes (after the test), so a handler may
 * keep one open and never read it. What a handler throws is kept in {@link #errors()}.
 */
final class LocalApp implements AutoCloseable {
    @FunctionalInterface
    interface Handler {
        void handle(Socket socket) throws Exception;
    }

    private final ServerSocket server;
    private final Handler handler;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "local-app");
        t.setDaemon(true);
        return t;
    });

    LocalApp(Handler handler) throws IOException {
        this.handler = handler;
        this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    List<Throwable> errors() {
        return errors;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                return;
            }
            sockets.add(socket);
            threads.execute(() -> {
                try {
                    handler.handle(socket);
                } catch (Throwable e) {
                    if (!server.isClosed()) {
                        errors.add(e);
                    }
                }
            });
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        threads.shutdownNow();
    }
}

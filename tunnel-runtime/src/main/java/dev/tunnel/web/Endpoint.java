package dev.tunnel.web;

/** Answers one route. Runs on the connection's event loop unless its route is blocking. */
@FunctionalInterface
public interface Endpoint {
    WebResponse handle(WebRequest request) throws Exception;
}

/** The {@code tcpmux} proxy type: TCP connections routed by the host of an HTTP CONNECT on {@code tcpmuxHTTPConnectPort}. */
package dev.tunnel.server.proxy.tcpmux;

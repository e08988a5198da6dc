/** TLS for the tunnel connection: PEM loading, server and client {@code SslContext}s, and certificate generation. */
package dev.tunnel.tls;

/**
 * The PROXY protocol on the way in: which balancers the server trusts ({@code proxyProtocolTrustedIPs}),
 * the handlers that read their header on the public ports, and the visitor address every other
 * part of the server reads ({@link dev.tunnel.server.inbound.VisitorAddress}).
 */
package dev.tunnel.server.inbound;

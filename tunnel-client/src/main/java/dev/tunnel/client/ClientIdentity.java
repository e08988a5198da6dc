package dev.tunnel.client;

/** Who this client says it is at login, and the transport mode it asks for. */
record ClientIdentity(String version, String hostname, String runId, String token, boolean tcpMux, int poolCount) {
}

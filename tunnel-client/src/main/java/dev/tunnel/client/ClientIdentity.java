package dev.tunnel.client;

/** Who this client says it is at login. */
record ClientIdentity(String version, String hostname, String runId, String token, boolean tcpMux, int poolCount) {
}

/** Proof of the shared token at login, computed without sending the token. */
package dev.tunnel.protocol.auth;

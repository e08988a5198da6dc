/** End-to-end tests: a real server and client over real sockets on loopback. */
package dev.tunnel.e2e;

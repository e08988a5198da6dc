/** The home side: dials the server, registers proxies and forwards each stream to its local app. */
package dev.tunnel.client;

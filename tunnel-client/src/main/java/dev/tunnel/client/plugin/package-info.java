/** Client plugins: built-in local targets such as the {@code static_file} HTTP file server that a proxy forwards to. */
package dev.tunnel.client.plugin;

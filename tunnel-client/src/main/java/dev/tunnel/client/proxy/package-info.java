/**
 * How the client runs a proxy type: the {@link dev.tunnel.client.proxy.ClientProxyType} interface (its config
 * keys, the options its {@code NEW_PROXY} carries, how its connections reach the local app) and the
 * {@link dev.tunnel.client.proxy.ClientProxyTypes} registry. Each type lives in a package of its own below this
 * one; docs/architecture.md shows how to add one.
 */
package dev.tunnel.client.proxy;

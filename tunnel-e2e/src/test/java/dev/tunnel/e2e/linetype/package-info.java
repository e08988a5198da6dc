/**
 * A proxy type that exists only in the tests, to show that a type is a package of its own plus
 * one registration line on each side ({@code ServerProxyTypes.standard().register(new
 * LineServerType())}, {@code ClientProxyTypes.standard().register(new LineClientType())}).
 * {@code type = "line"}: one public port shared by every session; a public connection's first
 * line ({@code route\n}) names the proxy, the rest goes to its local app. It exercises what HTTP
 * vhosts need: a shared listener, routing on the first bytes, and {@code SessionLink.carry}.
 */
package dev.tunnel.e2e.linetype;

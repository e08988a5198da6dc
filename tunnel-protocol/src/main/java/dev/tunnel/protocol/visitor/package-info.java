/** Secret proxies (stcp, sudp) and their visitors: the hello a visitor stream starts with, the gate that reads it and the stream-to-stream splice on the server. */
package dev.tunnel.protocol.visitor;

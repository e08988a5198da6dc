/** frp's server plugins ({@code [[httpPlugins]]}): the JSON-over-HTTP calls the server makes before it lets a client do something. */
package dev.tunnel.server.plugin;

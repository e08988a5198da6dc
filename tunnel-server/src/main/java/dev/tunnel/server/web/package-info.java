/** What the server shows of itself: the table of clients and proxies, the REST API, /metrics and the dashboard. */
package dev.tunnel.server.web;

/** The client's admin API ({@code webServer.*}: status, reload, config, stop) and the commands that call it. */
package dev.tunnel.client.admin;

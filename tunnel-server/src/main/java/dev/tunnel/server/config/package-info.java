/** The server's settings from an frps-style TOML file: fields with defaults, frp keys we lack, and validation. */
package dev.tunnel.server.config;

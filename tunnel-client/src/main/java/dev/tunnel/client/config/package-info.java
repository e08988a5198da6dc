/** The client's settings from an frpc-style TOML file: fields with defaults, proxies, frp keys we lack, and validation. */
package dev.tunnel.client.config;

/**
 * Loads frp-style TOML, YAML and JSON files into config objects, collecting every error with its file, line and key path.
 */
package dev.tunnel.config;

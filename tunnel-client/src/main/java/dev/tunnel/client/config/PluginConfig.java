package dev.tunnel.client.config;

/** TEMPORARY stand-in until the config loader lands (same public fields). */
public class PluginConfig {
    public String type;
    public String localPath;
    public String stripPrefix = "";
    public String httpUser = "";
    public String httpPassword = "";
}

/** Health checks of a proxy's local app ({@code [proxies.healthCheck]}). */
package dev.tunnel.client.health;

/**
 * What both jars run on besides the tunnel itself: the shared command line and version, logging
 * set-up, and the JVM footprint (flags for a small VPS, start-up-only classes unloaded).
 */
package dev.tunnel.runtime;

/**
 * Keeping the resident memory of a long-running tunnel small: code needed only at start-up is
 * loaded so that it can be unloaded (README "Running on a 1 GB VPS").
 */
package dev.tunnel.protocol.footprint;

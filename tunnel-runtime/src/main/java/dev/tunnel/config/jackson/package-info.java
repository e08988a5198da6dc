/**
 * The Jackson side of config loading, loaded only through a {@code ThrowawayLoader} (see
 * {@code ConfigLoader}); the rest of the code never refers to Jackson, so its classes are unloaded after start-up.
 */
package dev.tunnel.config.jackson;

package dev.tunnel.config;

/** Checks the values of a bound config and adds every problem found; never stops at the first. */
@FunctionalInterface
public interface ConfigValidator<T> {

    void validate(T config, ConfigErrors errors);
}

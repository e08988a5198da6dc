/** Test support shared by every module: leak guard, logging capture. */
package dev.tunnel.protocol.testing;

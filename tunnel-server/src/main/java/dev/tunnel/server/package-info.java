/** The VPS side: accepts client logins, opens public ports and carries each public connection as a stream. */
package dev.tunnel.server;

/** The web servers of both sides (server dashboard and API, client admin API): HTTP, auth, cross-site checks, JSON. */
package dev.tunnel.web;

/** Wire format shared by server and client: preface, frames, control messages and their codecs. */
package dev.tunnel.protocol;

package dev.tunnel.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.NetUtil;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the {@link SslContext}s of the tunnel connection from {@link TlsFiles}.
 *
 * <p>TLS 1.3 is preferred, TLS 1.2 allowed. The provider is BoringSSL through netty-tcnative when
 * it loads on this platform, else the JDK; the choice is made and logged once per JVM.
 * Contexts are immutable and thread-safe; build them once at start-up and share them.
 *
 * <p>The peer certificate stays reachable after the handshake through
 * {@code sslHandler.engine().getSession().getPeerCertificates()}, also when the client does not
 * verify it, so a caller can check it against something else (such as a token-bound fingerprint).
 */
public final class TlsContexts {

    /** Enabled protocols, most preferred first. */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private static final Logger LOG = LoggerFactory.getLogger(TlsContexts.class);

    private TlsContexts() {
    }

    /** Lazily chooses and logs the provider on first use (class initialisation is thread-safe). */
    private static final class ProviderChoice {
        static final SslProvider PROVIDER;
        static final String NAME;

        static {
            if (OpenSsl.isAvailable()) {
                PROVIDER = SslProvider.OPENSSL;
                NAME = "OpenSSL (" + OpenSsl.versionString() + " via netty-tcnative)";
            } else {
                PROVIDER = SslProvider.JDK;
                NAME = "JDK (" + System.getProperty("java.vendor") + " " + System.getProperty("java.version") + ")";
                LOG.debug("netty-tcnative unavailable, using the JDK TLS provider", OpenSsl.unavailabilityCause());
            }
            LOG.info("TLS provider: {}", NAME);
        }
    }

    /** The provider contexts are built with: {@link SslProvider#OPENSSL} when available, else {@link SslProvider#JDK}. */
    public static SslProvider provider() {
        return ProviderChoice.PROVIDER;
    }

    /** Human-readable provider, e.g. {@code OpenSSL (BoringSSL via netty-tcnative)} or {@code JDK (...)}. */
    public static String providerName() {
        return ProviderChoice.NAME;
    }

    /**
     * The tunnel server's context. Presents {@code certFile}/{@code keyFile}, or a self-signed
     * certificate generated now (its SHA-256 fingerprint is logged) when neither is given. With
     * {@code trustedCaFile}, clients must present a certificate issued by that CA (mutual TLS).
     *
     * @throws TlsConfigException when a file is missing, unreadable, not PEM, or the key does not match
     */
    public static SslContext server(TlsFiles files) {
        return server(files, provider());
    }

    static SslContext server(TlsFiles files, SslProvider provider) {
        return server(files, null, provider).context();
    }

    /** A server context with the leaf certificate it presents (what the login is bound to). */
    public record ServerTls(SslContext context, X509Certificate certificate) {
    }

    /**
     * Like {@link #server(TlsFiles)}, and also returns the certificate presented. Without a
     * certificate file, the self-signed certificate is kept in {@code selfSignedDir} when that is
     * given (created on first start, reused after, so its fingerprint can be pinned), else
     * generated fresh.
     */
    public static ServerTls server(TlsFiles files, Path selfSignedDir) {
        return server(files, selfSignedDir, provider());
    }

    static ServerTls server(TlsFiles files, Path selfSignedDir, SslProvider provider) {
        files.checkKeyPairComplete();
        ServerKeys keys = KeyMaterial.isolated(material -> ServerKeys.load(material, files, selfSignedDir));
        if (keys.selfSigned()) {
            LOG.info("No {} given: {} self-signed server certificate, fingerprint sha256:{}",
                    TlsFiles.CERT_FILE_KEY, selfSignedDir == null ? "generated a" : "using the persisted",
                    CertifiedKey.sha256Fingerprint(keys.chain().get(0)));
        }
        SslContextBuilder builder = SslContextBuilder.forServer(keys.key(), keys.chain());
        if (keys.trusted() != null) {
            builder.trustManager(keys.trusted()).clientAuth(ClientAuth.REQUIRE);
        } else {
            builder.trustManager(NoClientCertificates.INSTANCE);
        }
        return new ServerTls(build(builder.sslProvider(provider).protocols(PROTOCOLS), files), keys.chain().get(0));
    }

    /** The server's key, its chain (leaf first), and the CAs client certificates must chain to (null: none asked). */
    private record ServerKeys(PrivateKey key, List<X509Certificate> chain, boolean selfSigned, List<X509Certificate> trusted) {
        static ServerKeys load(KeyMaterial material, TlsFiles files, Path selfSignedDir) {
            PrivateKey key;
            List<X509Certificate> chain;
            if (files.hasKeyPair()) {
                CertifiedChain loaded = CertifiedChain.load(material, files);
                key = loaded.key();
                chain = loaded.certificates();
            } else {
                CertifiedKey selfSigned = material.selfSignedServer(selfSignedDir);
                key = selfSigned.privateKey();
                chain = List.of(selfSigned.certificate());
            }
            List<X509Certificate> trusted = files.trustedCaFile() == null ? null
                    : material.readCertificates(TlsFiles.TRUSTED_CA_FILE_KEY, files.trustedCaFile());
            return new ServerKeys(key, chain, !files.hasKeyPair(), trusted);
        }
    }

    /**
     * The tunnel client's context.
     *
     * <ul>
     *   <li>With {@code trustedCaFile}: the server certificate must chain to that CA.</li>
     *   <li>Without it and {@code verifyServer}: the server certificate must chain to the JDK's default trust store.</li>
     *   <li>Without it and not {@code verifyServer}: the server certificate is not verified (frp's
     *       default); the caller should log a warning.</li>
     * </ul>
     * With {@code certFile}/{@code keyFile} the client presents that certificate. Host name checks are
     * chosen per connection in {@link #newClientHandler}.
     *
     * @throws TlsConfigException when a file is missing, unreadable, not PEM, or the key does not match
     */
    public static SslContext client(TlsFiles files, boolean verifyServer) {
        return client(files, verifyServer, provider());
    }

    static SslContext client(TlsFiles files, boolean verifyServer, SslProvider provider) {
        files.checkKeyPairComplete();
        SslContextBuilder builder = SslContextBuilder.forClient()
                // Netty 4.2 turns on HTTPS host name checks for clients by default; newClientHandler decides.
                .endpointIdentificationAlgorithm(null);
        if (files.hasKeyPair()) {
            CertifiedChain chain = KeyMaterial.isolated(material -> CertifiedChain.load(material, files));
            builder.keyManager(chain.key(), chain.certificates());
        }
        if (files.trustedCaFile() != null) {
            List<X509Certificate> trusted = KeyMaterial.isolated(
                    material -> material.readCertificates(TlsFiles.TRUSTED_CA_FILE_KEY, files.trustedCaFile()));
            builder.trustManager(trusted);
        } else if (!verifyServer) {
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        return build(builder.sslProvider(provider).protocols(PROTOCOLS), files);
    }

    /**
     * A client-side {@link SslHandler} for one connection.
     *
     * @param serverName     host the client dials; sent as SNI unless it is an IP literal
     * @param verifyHostname check the server certificate's names against {@code serverName}
     *                       ("HTTPS" endpoint identification); meaningful only with a verifying context
     */
    public static SslHandler newClientHandler(SslContext ctx, ByteBufAllocator alloc, String serverName, int port,
                                              boolean verifyHostname) {
        String host = stripBrackets(serverName);
        SslHandler handler = ctx.newHandler(alloc, host, port);
        SSLEngine engine = handler.engine();
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
        parameters.setServerNames(sniFor(host));
        engine.setSSLParameters(parameters);
        return handler;
    }

    private static List<javax.net.ssl.SNIServerName> sniFor(String host) {
        if (host == null || NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
            return List.of();
        }
        try {
            return List.of(new SNIHostName(host));
        } catch (IllegalArgumentException e) {
            LOG.debug("Not sending SNI for {}: not a valid host name ({})", host, e.getMessage());
            return List.of();
        }
    }

    private static String stripBrackets(String host) {
        if (host != null && host.length() > 2 && host.startsWith("[") && host.endsWith("]")) {
            return host.substring(1, host.length() - 1);
        }
        return host;
    }

    private static SslContext build(SslContextBuilder builder, TlsFiles files) {
        try {
            return builder.build();
        } catch (SSLException e) {
            if (files.hasKeyPair()) {
                throw new TlsConfigException(TlsFiles.CERT_FILE_KEY, files.certFile(),
                        "rejected by the TLS provider " + providerName() + ": " + e.getMessage(), e);
            }
            throw new IllegalStateException("cannot build TLS context with " + providerName() + ": " + e.getMessage(), e);
        }
    }

    /** A certificate chain and the private key of its leaf, checked to belong together. */
    private record CertifiedChain(PrivateKey key, List<X509Certificate> certificates) {
        static CertifiedChain load(KeyMaterial material, TlsFiles files) {
            List<X509Certificate> certificates = material.readCertificates(TlsFiles.CERT_FILE_KEY, files.certFile());
            PrivateKey key = material.readPrivateKey(TlsFiles.KEY_FILE_KEY, files.keyFile());
            if (!material.matches(key, certificates.get(0))) {
                throw new TlsConfigException(TlsFiles.KEY_FILE_KEY, files.keyFile(),
                        "private key does not match the certificate in " + TlsFiles.CERT_FILE_KEY + " " + files.certFile());
            }
            return new CertifiedChain(key, certificates);
        }
    }
}

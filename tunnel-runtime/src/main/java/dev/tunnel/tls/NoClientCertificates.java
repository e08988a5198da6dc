package dev.tunnel.tls;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.X509TrustManager;

/**
 * The trust manager of a server that does not ask for client certificates (no
 * {@code transport.tls.trustedCaFile}): it trusts nobody.
 *
 * <p>Without it, Netty gives a server context the JDK's default trust manager, which parses the
 * whole JDK CA store (about 150 certificates, a megabyte of heap and a few hundred classes) that a
 * server without client authentication never consults. Should a certificate ever reach it, it is
 * refused with a message that names the setting. Stateless and thread-safe.
 */
final class NoClientCertificates implements X509TrustManager {

    static final NoClientCertificates INSTANCE = new NoClientCertificates();

    private NoClientCertificates() {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("client certificates are not accepted: the server has no "
                + TlsFiles.TRUSTED_CA_FILE_KEY + " to verify them with");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a server context does not verify server certificates");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}

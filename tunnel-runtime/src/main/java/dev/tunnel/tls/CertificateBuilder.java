package dev.tunnel.tls;

import io.netty.util.NetUtil;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Builds and signs one X.509 v3 certificate with BouncyCastle; package-private helper of {@link CertificateAuthority}. */
final class CertificateBuilder {

    /** The role a certificate is issued for; sets its key usages. */
    enum Role { CA, SERVER, CLIENT }

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Backdating tolerates clocks that are slightly behind. */
    private static final Duration BACKDATE = Duration.ofHours(1);

    private CertificateBuilder() {
    }

    static X509Certificate build(Role role, String commonName, List<String> subjectAltNames, PublicKey subjectKey,
                                 X509Certificate issuer, PrivateKey issuerKey, Duration validity) {
        Instant now = Instant.now();
        X500Name subject = new X500Name("CN=" + escapeRdn(commonName));
        X500Name issuerName = issuer == null ? subject : X500Name.getInstance(issuer.getSubjectX500Principal().getEncoded());
        BigInteger serial = new BigInteger(127, RANDOM).add(BigInteger.ONE);
        try {
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName, serial,
                    Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), subject, subjectKey);
            builder.addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(subjectKey));
            if (issuer != null) {
                builder.addExtension(Extension.authorityKeyIdentifier, false,
                        extensions.createAuthorityKeyIdentifier(issuer));
            }
            switch (role) {
                case CA -> {
                    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
                    builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
                }
                case SERVER, CLIENT -> {
                    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
                    // keyEncipherment only means something for RSA key exchange.
                    int usage = "RSA".equals(subjectKey.getAlgorithm())
                            ? KeyUsage.digitalSignature | KeyUsage.keyEncipherment : KeyUsage.digitalSignature;
                    builder.addExtension(Extension.keyUsage, true, new KeyUsage(usage));
                    builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            role == Role.SERVER ? KeyPurposeId.id_kp_serverAuth : KeyPurposeId.id_kp_clientAuth));
                }
            }
            if (!subjectAltNames.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false, generalNames(subjectAltNames));
            }
            PrivateKey signingKey = issuerKey;
            JcaContentSignerBuilder signer = new JcaContentSignerBuilder(KeyType.of(signingKey).signatureAlgorithm());
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer.build(signingKey)));
        } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build certificate for CN=" + commonName, e);
        }
    }

    private static GeneralNames generalNames(List<String> names) {
        Set<String> unique = new LinkedHashSet<>(names);
        GeneralName[] result = new GeneralName[unique.size()];
        int i = 0;
        for (String name : unique) {
            boolean ip = NetUtil.isValidIpV4Address(name) || NetUtil.isValidIpV6Address(name);
            result[i++] = new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, name);
        }
        return new GeneralNames(result);
    }

    /** Escapes the RFC 4514 special characters so a user-chosen name cannot add attributes. */
    private static String escapeRdn(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (char c : value.toCharArray()) {
            if (",+\"\\<>;=#".indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }
}

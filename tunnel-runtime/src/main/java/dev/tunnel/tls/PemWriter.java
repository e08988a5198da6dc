package dev.tunnel.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemObjectGenerator;

/** Writes certificates and private keys as PEM text or files. Stateless and thread-safe. */
public final class PemWriter {

    /** How a private key is encoded. */
    public enum KeyFormat {
        /** {@code BEGIN PRIVATE KEY}: the modern, algorithm-independent form; the default. */
        PKCS8,
        /** {@code BEGIN RSA PRIVATE KEY} or {@code BEGIN EC PRIVATE KEY}: the traditional OpenSSL form. */
        PKCS1
    }

    private PemWriter() {
    }

    /** PEM text of the certificates, one block each, in the given order. */
    public static String certificates(X509Certificate... certificates) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            for (X509Certificate certificate : certificates) {
                writer.writeObject(certificate);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** PEM text of the unencrypted private key. */
    public static String privateKey(PrivateKey key, KeyFormat format) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            if (format == KeyFormat.PKCS8) {
                PemObjectGenerator pkcs8 = new JcaPKCS8Generator(key, null);
                writer.writeObject(pkcs8);
            } else if (key instanceof ECPrivateKey ec) {
                writer.writeObject(new PemObject("EC PRIVATE KEY", sec1(ec)));
            } else {
                writer.writeObject(key); // JcaPEMWriter emits the traditional per-algorithm block ("RSA PRIVATE KEY").
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * SEC1 {@code ECPrivateKey} with the curve OID and the public point, as OpenSSL writes it. The
     * JDK's PKCS#8 encoding leaves both out of the inner structure, which makes a bare copy unreadable.
     */
    private static byte[] sec1(ECPrivateKey key) throws IOException {
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
        ASN1ObjectIdentifier curve = ASN1ObjectIdentifier.getInstance(info.getPrivateKeyAlgorithm().getParameters());
        X9ECParameters parameters = ECNamedCurveTable.getByOID(curve);
        if (parameters == null) {
            throw new IOException("unsupported EC curve " + curve + " for PKCS#1 output; use PKCS#8");
        }
        byte[] publicPoint = parameters.getG().multiply(key.getS()).normalize().getEncoded(false);
        return new org.bouncycastle.asn1.sec.ECPrivateKey(parameters.getN().bitLength(), key.getS(),
                new DERBitString(publicPoint), curve).getEncoded();
    }

    /** Writes the certificates to {@code file}, replacing it. */
    public static void writeCertificates(Path file, X509Certificate... certificates) throws IOException {
        Files.writeString(file, certificates(certificates), StandardCharsets.US_ASCII);
    }

    /** Writes the key to {@code file}, replacing it; readable by the owner only where the file system has POSIX permissions. */
    public static void writePrivateKey(Path file, PrivateKey key, KeyFormat format) throws IOException {
        Files.deleteIfExists(file);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(file, privateKey(key, format), StandardCharsets.US_ASCII,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    }
}

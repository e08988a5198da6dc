package dev.tunnel.tls;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads certificates and private keys from PEM files with BouncyCastle, turning every way a file
 * can be wrong into a {@link TlsConfigException} that names the config key and the file.
 *
 * <p>Keys may be PKCS#8 ({@code BEGIN PRIVATE KEY}) or PKCS#1 ({@code BEGIN RSA PRIVATE KEY},
 * {@code BEGIN EC PRIVATE KEY}); encrypted keys are refused. Stateless and thread-safe.
 */
public final class PemFiles {

    private static final String KEY_EXPECTED =
            "expected a PEM \"PRIVATE KEY\" or \"RSA PRIVATE KEY\" block";
    private static final String CERT_EXPECTED = "expected a PEM \"CERTIFICATE\" block";

    private PemFiles() {
    }

    /** Reads every certificate in {@code file}, in file order (for a chain: leaf first). */
    public static List<X509Certificate> readCertificates(String configKey, Path file) {
        String pem = readText(configKey, file);
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object;
            while ((object = parser.readObject()) != null) {
                if (object instanceof X509CertificateHolder holder) {
                    certificates.add(converter.getCertificate(holder));
                }
            }
        } catch (IOException | CertificateException | RuntimeException e) {
            throw new TlsConfigException(configKey, file, "not a valid PEM certificate file: " + describe(e), e);
        }
        if (certificates.isEmpty()) {
            throw new TlsConfigException(configKey, file, "no certificate found (" + CERT_EXPECTED + ")");
        }
        return certificates;
    }

    /** Reads the first private key in {@code file}. */
    public static PrivateKey readPrivateKey(String configKey, Path file) {
        String pem = readText(configKey, file);
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object;
            while ((object = parser.readObject()) != null) {
                if (object instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (object instanceof PEMKeyPair pair) {
                    // PKCS#1 / SEC1; the public half is optional in "EC PRIVATE KEY", so convert the private part only.
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (object instanceof PKCS8EncryptedPrivateKeyInfo || object instanceof PEMEncryptedKeyPair) {
                    throw new TlsConfigException(configKey, file,
                            "the private key is encrypted; store it unencrypted (e.g. openssl pkcs8 -nocrypt)");
                }
                // Anything else (certificates, an "EC PARAMETERS" block) is skipped.
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof TlsConfigException tce) {
                throw tce;
            }
            throw new TlsConfigException(configKey, file, "not a valid PEM private key file: " + describe(e), e);
        }
        throw new TlsConfigException(configKey, file, "no private key found (" + KEY_EXPECTED + ")");
    }

    private static String readText(String configKey, Path file) {
        if (Files.isDirectory(file)) {
            throw new TlsConfigException(configKey, file, "is a directory, expected a PEM file");
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TlsConfigException(configKey, file, "file not found", e);
        } catch (AccessDeniedException e) {
            throw new TlsConfigException(configKey, file, "cannot read file: permission denied", e);
        } catch (IOException e) {
            throw new TlsConfigException(configKey, file, "cannot read file: " + describe(e), e);
        }
        if (bytes.length == 0) {
            throw new TlsConfigException(configKey, file, "file is empty, expected PEM");
        }
        try {
            return StandardCharsets.US_ASCII.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            // Likely DER or some other binary format.
            throw new TlsConfigException(configKey, file, "not a PEM text file (binary content; DER must be converted to PEM)", e);
        }
    }

    /** Whether {@code key} is the private half of {@code certificate}'s public key (sign and verify a probe). */
    static boolean matches(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null || !key.getAlgorithm().equals(certificate.getPublicKey().getAlgorithm())) {
            return false;
        }
        try {
            byte[] probe = "tunnel key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}

package dev.tunnel.tls;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;

/** Key algorithms that {@link CertificateAuthority} generates certificates for. */
public enum KeyType {
    /** ECDSA on NIST P-256: small and fast, the default. */
    EC_P256("SHA256withECDSA"),
    /** RSA 2048 for peers that do not speak ECDSA. */
    RSA_2048("SHA256withRSA");

    private final String signatureAlgorithm;

    KeyType(String signatureAlgorithm) {
        this.signatureAlgorithm = signatureAlgorithm;
    }

    /** JCA name of the signature algorithm a key of this type signs certificates with. */
    public String signatureAlgorithm() {
        return signatureAlgorithm;
    }

    /** Generates a fresh key pair of this type. */
    public KeyPair generateKeyPair() {
        try {
            if (this == EC_P256) {
                KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
                generator.initialize(new ECGenParameterSpec("secp256r1"));
                return generator.generateKeyPair();
            }
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot generate a " + this + " key pair", e);
        }
    }

    /** The type of an existing private key, for signing with a loaded CA key. */
    public static KeyType of(java.security.PrivateKey key) {
        return switch (key.getAlgorithm()) {
            case "EC" -> EC_P256;
            case "RSA" -> RSA_2048;
            default -> throw new IllegalArgumentException(
                    "unsupported CA key algorithm " + key.getAlgorithm() + " (expected: EC or RSA)");
        };
    }
}

package dev.tunnel.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class NoClientCertificatesTest {

    @Test
    void trustsNobodyAndNamesTheSettingThatWould() {
        X509Certificate[] chain = {CertificateAuthority.selfSignedServer(KeyType.EC_P256).certificate()};
        assertThatThrownBy(() -> NoClientCertificates.INSTANCE.checkClientTrusted(chain, "ECDHE_ECDSA"))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("transport.tls.trustedCaFile");
        assertThatThrownBy(() -> NoClientCertificates.INSTANCE.checkServerTrusted(chain, "ECDHE_ECDSA"))
                .isInstanceOf(CertificateException.class);
        assertThat(NoClientCertificates.INSTANCE.getAcceptedIssuers()).isEmpty();
    }
}

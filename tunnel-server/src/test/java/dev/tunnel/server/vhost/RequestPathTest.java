package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RequestPathTest {
    @Test
    void aNormalPathIsReturnedAsItIs() {
        for (String path : new String[] {"/", "/a/b.c/", "/caf%C3%A9", "/a%20b", "/..a/.b/c..", "/a;jsessionid=1"}) {
            assertThat(RequestPath.normalize(path)).as(path).isSameAs(path);
        }
    }

    @Test
    void dotSegmentsGoAsInRfc3986WithSlashesMergedAndUnreservedCharactersDecoded() {
        String[][] cases = {
            {"/a/b/c/./../../g", "/a/g"}, {"/a/b/..", "/a/"}, {"/a/b/.", "/a/b/"}, {"/.", "/"}, {"//", "/"},
            {"/x/../admin", "/admin"}, {"//admin//x//", "/admin/x/"}, {"/%61dmin", "/admin"}, {"/%2e/a/%2E%2e/b", "/b"},
            {"/%7e%41%2d%5F", "/~A-_"}, {"/%3b%25%3F", "/%3b%25%3F"}, {"/\u00e9", "/%E9"}, {"/a/..%2e", "/a/..."},
        };
        for (String[] c : cases) {
            assertThat(RequestPath.normalize(c[0])).as(c[0]).isEqualTo(c[1]);
            assertThat(RequestPath.problem(c[0])).as(c[0]).isNull();
        }
    }

    @Test
    void whatAnAppCouldReadAnotherWayIsRefusedWithAReason() {
        String[][] cases = {
            {"/..", "climbs above the root"}, {"/a/../..", "climbs above the root"}, {"/%2e%2e/a", "climbs above the root"},
            {"/a%2fb", "encoded '/'"}, {"/a%5Cb", "encoded '/'"}, {"/a%00", "encoded '/'"}, {"/a\\b", "backslash"},
            {"/a\u0000b", "control character"}, {"/a%4", "malformed percent-encoding"}, {"/a%g0", "malformed"},
            {"/..;/a", "path parameters"}, {"/;x/a", "path parameters"}, {"/.;/a", "path parameters"},
            {"a/b", "does not start with '/'"}, {"", "does not start with '/'"},
        };
        for (String[] c : cases) {
            assertThat(RequestPath.normalize(c[0])).as(c[0]).isNull();
            assertThat(RequestPath.problem(c[0])).as(c[0]).contains(c[1]);
        }
    }

    @Test
    void locationsAreMatchedWithoutPathParameters() {
        assertThat(RequestPath.forMatching("/admin;v=1/x;y/z")).isEqualTo("/admin/x/z");
        String plain = "/admin/x";
        assertThat(RequestPath.forMatching(plain)).isSameAs(plain);
    }
}

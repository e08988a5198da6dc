#!/usr/bin/env bash
# Lays out what a user installs, from the two shaded jars built before this module:
#   OUT/tunnel-VERSION-PLATFORM/           bin/ (launchers), lib/ (jars), runtime/ (jlink),
#                                          config/ (samples), systemd/ (units), README.md, install.md
#   OUT/tunnel-VERSION-PLATFORM.tar.gz     that directory
#   OUT/tunnel_DEBVERSION_ARCH.deb         the same files in Debian's places (docs/install.md)
#   OUT/image/{base,server,client}/        the file trees of the image tars jib builds next
# Usage: package.sh VERSION PLATFORM OUT    (run by mvn -Pdist in tunnel-dist)
# jlink links the JDK running this script, so PLATFORM must be this machine's.
set -euo pipefail
version=$1 platform=$2 out=$3
here=$(cd "$(dirname "$0")/.." && pwd)   # tunnel-dist/src
root=$(cd "$here/../.." && pwd)
name="tunnel-$version-$platform"
stage="$out/$name"
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}

case "$platform" in
    linux-x86_64) deb_arch=amd64; machine=x86_64 ;;
    linux-aarch64) deb_arch=arm64; machine=aarch64 ;;
    *) echo "package.sh: no package layout for $platform (linux-x86_64, linux-aarch64)" >&2; exit 1 ;;
esac
[ "$(uname -m)" = "$machine" ] || { echo "package.sh: $platform must be built on $machine, this is $(uname -m) (jlink links this machine's JDK)" >&2; exit 1; }

rm -rf "$stage" "$out/deb" "$out/image"
mkdir -p "$stage"/{bin,lib,config,systemd}
cp "$root/tunnel-server/target/tunnel-server.jar" "$root/tunnel-client/target/tunnel-client.jar" "$stage/lib/"
for launcher in tunnel-server tunnel-client; do
    install -m 755 "$here/bin/launcher.sh" "$stage/bin/$launcher"
done
install -m 644 "$root"/config/*.toml "$stage/config/"
install -m 644 "$root"/config/systemd/*.service "$stage/systemd/"
install -m 644 "$root/README.md" "$root/docs/install.md" "$stage/"

# The runtime: the JDK modules the jars use (jdeps), less two that only optional code paths
# reach (java.desktop: java.beans for Jackson's and SnakeYAML's bean support, which the config
# loader does not use; java.sql: Jackson's and picocli's java.sql.* converters), plus two found
# only at run time: jdk.crypto.ec (EC keys and TLS curves come from a provider) and
# jdk.management (the JVM metrics' process figures). The dist checks run the jars on it.
# classes_nocoops.jsa is the class-sharing archive for heaps over 32 GB: dropped (11 MB).
modules=$("$java_home/bin/jdeps" --multi-release 17 --ignore-missing-deps --list-deps \
    "$stage/lib/tunnel-server.jar" "$stage/lib/tunnel-client.jar" \
    | awk '$1 ~ /^(java|jdk)\./ && $1 !~ /^java\.(desktop|sql)$/ { print $1 }' | paste -sd, -)
modules="$modules,jdk.crypto.ec,jdk.management"
echo "package.sh: runtime modules: $modules"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --compress=2 --generate-cds-archive --output "$stage/runtime"
rm -f "$stage/runtime/lib/server/classes_nocoops.jsa"
"$stage/runtime/bin/java" -version 2>&1 | head -n 1

tar -C "$out" --owner=0 --group=0 -czf "$out/$name.tar.gz" "$name"
echo "package.sh: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"

# The .deb: programs under /usr/lib/tunnel, launchers linked into /usr/bin, samples in
# /etc/tunnel (conffiles, 0640 root:tunnel once postinst made the user), units in /lib/systemd.
deb_version=${version/-/\~}   # 0.1.0-SNAPSHOT sorts before 0.1.0 as 0.1.0~SNAPSHOT
pkg="$out/deb/root"
mkdir -p "$pkg"/{DEBIAN,usr/bin,usr/lib/tunnel,etc/tunnel,lib/systemd/system,usr/share/doc/tunnel/examples}
cp -a "$stage/bin" "$stage/lib" "$stage/runtime" "$pkg/usr/lib/tunnel/"
ln -s ../lib/tunnel/bin/tunnel-server "$pkg/usr/bin/tunnel-server"
ln -s ../lib/tunnel/bin/tunnel-client "$pkg/usr/bin/tunnel-client"
install -m 640 "$root/config/server.toml" "$pkg/etc/tunnel/"
# the client sample serves ./docs of a checkout; installed, it serves the package's own docs
sed -e 's|^localPath = "./docs"|localPath = "/usr/share/doc/tunnel"|' \
    -e 's|^# Run from the repo root.*|# Serves /usr/share/doc/tunnel through the tunnel on public port 6080.|' \
    -e 's|^# Then `curl http://127.0.0.1:6080/` lists the files in ./docs.|# Then `curl http://127.0.0.1:6080/` lists them.|' \
    "$root/config/client.toml" > "$pkg/etc/tunnel/client.toml"
chmod 640 "$pkg/etc/tunnel/client.toml"
grep -q '^localPath = "/usr/share/doc/tunnel"' "$pkg/etc/tunnel/client.toml" \
    || { echo "package.sh: config/client.toml has no localPath = \"./docs\" line to point at the installed docs" >&2; exit 1; }
install -m 644 "$stage"/systemd/*.service "$pkg/lib/systemd/system/"
install -m 644 "$root/config/server_full.toml" "$root/config/client_full.toml" "$pkg/usr/share/doc/tunnel/examples/"
install -m 644 "$root/README.md" "$root/docs/install.md" "$pkg/usr/share/doc/tunnel/"
printf '/etc/tunnel/server.toml\n/etc/tunnel/client.toml\n' > "$pkg/DEBIAN/conffiles"
install -m 755 "$here/deb/postinst" "$here/deb/prerm" "$here/deb/postrm" "$pkg/DEBIAN/"
cat > "$pkg/DEBIAN/control" <<CONTROL
Package: tunnel
Version: $deb_version
Architecture: $deb_arch
Maintainer: tunnel developers <tunnel@localhost>
Installed-Size: $(du -sk "$pkg" | cut -f1)
Depends: libc6, libgcc-s1, libstdc++6, zlib1g, passwd
Section: net
Priority: optional
Description: reverse tunnel (frp-style) with frps.toml/frpc.toml keys
 tunnel-server runs on a host with a public IP, tunnel-client at home behind NAT;
 the client registers its proxies and the server carries public connections to
 them over one TLS connection. Bundles its own Java runtime. The systemd units
 tunnel-server and tunnel-client are installed but not enabled: edit
 /etc/tunnel/server.toml (client.toml), then systemctl enable --now.
CONTROL
deb="$out/tunnel_${deb_version}_${deb_arch}.deb"
dpkg-deb --root-owner-group -Zgzip --build "$pkg" "$deb" >/dev/null
echo "package.sh: $deb ($(du -h "$deb" | cut -f1))"

# The images' files. base: the runtime and the C libraries it and Netty's natives link against,
# copied from this machine (the runtime was linked here, so they match), and a passwd naming the
# image's user 65532. server/client: the jar and the sample config at /etc/tunnel.
base="$out/image/base"
mkdir -p "$base/opt/tunnel" "$base/etc" "$base/tmp" "$base/var/lib/tunnel"
cp -a "$stage/runtime" "$base/opt/tunnel/"
natives="$out/image/natives"
mkdir -p "$natives"
(cd "$natives" && unzip -qo "$stage/lib/tunnel-server.jar" "META-INF/native/*${machine%64}*")
find "$base/opt/tunnel/runtime" "$natives" -type f \( -name '*.so' -o -path '*/bin/*' \) | xargs ldd 2>/dev/null \
    | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' \
    | grep -v "^$out/" | sort -u | while read -r lib; do   # not the runtime's own libjli.so
    mkdir -p "$base$(dirname "$lib")"
    cp -L "$lib" "$base$lib"
done
rm -rf "$natives"
printf 'root:x:0:0:root:/root:/sbin/nologin\ntunnel:x:65532:65532:tunnel:/var/lib/tunnel:/sbin/nologin\n' > "$base/etc/passwd"
printf 'root:x:0:\ntunnel:x:65532:\n' > "$base/etc/group"
# jib insists on a target/classes directory, which this module (no main code) lacks
mkdir -p "$out/classes"
for side in server client; do
    mkdir -p "$out/image/$side/opt/tunnel/lib" "$out/image/$side/etc/tunnel"
    cp "$stage/lib/tunnel-$side.jar" "$out/image/$side/opt/tunnel/lib/"
    cp "$root/config/$side.toml" "$out/image/$side/etc/tunnel/"
done

#!/bin/sh
# Build the bot: ./build.sh [DIR] builds bot.jar into DIR (default: this directory)
# and copies bot.toml beside it, so DIR is a complete bot directory.
# Needs Debian's openjdk-17-jdk-headless, libgrpc-java, libnetty-java, libperfmark-java,
# libprotobuf-java, libgoogle-gson-java,
# libgeronimo-annotation-1.3-spec-java, protobuf-compiler and
# protobuf-compiler-grpc-java-plugin. bot.jar holds only this bot's classes; its
# manifest names the Debian jars (under /usr/share/java, which the sandbox shows).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jars=""
for name in grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite \
    grpc-stub protobuf guava netty-buffer netty-codec netty-codec-http netty-codec-http2 \
    netty-common netty-handler netty-resolver netty-transport perfmark-api gson; do
  [ -f "/usr/share/java/$name.jar" ] || { echo "missing /usr/share/java/$name.jar" >&2; exit 1; }
  jars="$jars /usr/share/java/$name.jar"
done
mkdir -p "$work/gen" "$work/classes"
protoc -I "$here/proto" --java_out="$work/gen" --grpc-java_out="$work/gen" \
  --plugin=protoc-gen-grpc-java="$(command -v grpc_java_plugin)" niwa/v1/bot.proto
# shellcheck disable=SC2086  # the list of jars, split on purpose
classpath=$(echo $jars | tr ' ' ':')
# javax.annotation.Generated, which the generated code carries: needed to compile only.
classpath="$classpath:/usr/share/java/geronimo-annotation-1.3-spec.jar"
find "$work/gen" "$here/src" -name '*.java' > "$work/sources"
javac -nowarn -encoding UTF-8 --release 17 -cp "$classpath" -d "$work/classes" "@$work/sources"
printf 'Class-Path:%s\n' "$jars" | fold -w 70 | sed '2,$s/^/ /' > "$work/manifest"
jar --create --file "$out/bot.jar" --manifest "$work/manifest" --main-class niwa.kit.Bot \
  -C "$work/classes" .
[ "$out" = "$here" ] || cp "$here/bot.toml" "$out/bot.toml"
echo "built $out/bot.jar"

#!/bin/sh
# Build the bot: ./build.sh [DIR] compiles ./bot into DIR (default: this directory)
# and copies bot.toml beside it, so DIR is a complete bot directory.
# Needs Debian's g++, pkg-config, libgrpc++-dev, protobuf-compiler,
# protobuf-compiler-grpc and nlohmann-json3-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
gen="$out/gen"
mkdir -p "$gen"
protoc -I "$here/proto" --cpp_out="$gen" --grpc_out="$gen" \
  --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" niwa/v1/bot.proto
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
g++ -std=c++17 -O2 -I "$gen" -o "$out/bot" "$here/bot.cc" \
  "$gen/niwa/v1/bot.pb.cc" "$gen/niwa/v1/bot.grpc.pb.cc" \
  $(pkg-config --cflags --libs grpc++ protobuf)
[ "$out" = "$here" ] || cp "$here/bot.toml" "$out/bot.toml"
rm -rf "$gen"
echo "built $out/bot"

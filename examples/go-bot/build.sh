#!/bin/sh
# Build the bot: ./build.sh [DIR] compiles ./bot into DIR (default: this directory)
# and copies bot.toml beside it, so DIR is a complete bot directory.
# Needs Debian's golang-go, golang-google-grpc-dev, golang-goprotobuf-dev and
# protobuf-compiler. Offline: GOPATH mode, with Debian's Go libraries in
# /usr/share/gocode; nothing is downloaded.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GO111MODULE=off GOPROXY=off GOPATH="$work:/usr/share/gocode"
# Go's build cache (where the compiled gRPC is kept between builds): Go's own default,
# or a throw-away one when there is no home (a bare CI environment).
[ -n "${GOCACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ] || export GOCACHE="$work/cache"
# Debian's grpc-go (1.33) marshals with github.com/golang/protobuf 1.3, so the code must
# come from that version's generator (with its grpc plugin); it is built here from
# Debian's sources, whichever protoc-gen-go /usr/bin holds.
go build -o "$work/protoc-gen-go" github.com/golang/protobuf/protoc-gen-go
# The generated package: import path niwabot/niwapb in a throw-away GOPATH.
mkdir -p "$work/src/niwabot/niwapb"
protoc -I "$here/proto" --plugin=protoc-gen-go="$work/protoc-gen-go" \
  --go_out="plugins=grpc,paths=source_relative,Mniwa/v1/bot.proto=niwabot/niwapb:$work/src/niwabot/niwapb" \
  niwa/v1/bot.proto
mv "$work/src/niwabot/niwapb/niwa/v1/bot.pb.go" "$work/src/niwabot/niwapb/"
cp "$here/bot.go" "$work/src/niwabot/"
cd "$work/src/niwabot"
go build -trimpath -o "$out/bot" .
[ "$out" = "$here" ] || cp "$here/bot.toml" "$out/bot.toml"
echo "built $out/bot"

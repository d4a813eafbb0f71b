"""The wire contract: the code protoc generates from proto/niwa/v1/ (proto package
``niwa.v1``), and the HTTP/2 connection both ends of a bot's calls set up
(:mod:`niwa.proto.http2`). A leaf package: it imports protobuf, grpc and h2, nothing of
niwa, so the sandbox can give it to bots without the CLI."""

"""The wire contract: the code protoc generates from proto/niwa/v1/ (proto package
``niwa.v1``). A leaf package: it imports protobuf and grpc, nothing of niwa, so the
sandbox can give it to bots without the CLI."""

"""Generated gRPC/protobuf code for proto/niwa_proto/v1/*.proto (do not edit; regenerate).

Regenerate from the repository root with::

    python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. \\
        proto/niwa_proto/v1/bot.proto proto/niwa_proto/v1/ladder.proto
"""

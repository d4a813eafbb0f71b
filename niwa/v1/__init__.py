"""Generated gRPC/protobuf code for proto/niwa/v1/*.proto (do not edit; regenerate).

Regenerate from the repository root with::

    python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. --grpc_python_out=. \\
        proto/niwa/v1/bot.proto
"""

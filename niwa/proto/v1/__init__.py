"""Generated gRPC/protobuf code for proto/niwa/v1/*.proto (do not edit; regenerate).

The .proto files stay where the design names them (proto/niwa/v1/); the ``-I`` mapping
gives the Python modules this package's path. Regenerate from the repository root with::

    python -m grpc_tools.protoc -Iniwa_proto/v1=proto/niwa/v1 --python_out=. \\
        --pyi_out=. --grpc_python_out=. niwa/proto/v1/bot.proto niwa/proto/v1/ladder.proto
"""

// Carries bytes between the referee's Unix socket and the gRPC server's in-JVM address.
//
// Why: Netty 4.1.48 (Debian's) serves Unix sockets only through its epoll transport,
// whose native library Debian does not package, and its NIO transport cannot take a
// Unix-socket channel. The JDK (16+) can listen on a Unix socket itself; this class
// accepts there and copies each connection's bytes to and from a Netty LocalChannel.
// gRPC's HTTP/2 frames pass through unchanged. You do not need to touch this file.
package niwa.kit;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

final class UnixBridge {
  private final ServerSocketChannel listener;
  private final LocalAddress inside;
  private final EventLoopGroup loop;

  private UnixBridge(ServerSocketChannel listener, LocalAddress inside, EventLoopGroup loop) {
    this.listener = listener;
    this.inside = inside;
    this.loop = loop;
  }

  static UnixBridge listen(String path, LocalAddress inside, EventLoopGroup loop)
      throws IOException {
    ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    listener.bind(UnixDomainSocketAddress.of(path));
    return new UnixBridge(listener, inside, loop);
  }

  /** Accepts connections until the listener closes; each gets its own copying thread. */
  void serve() throws IOException {
    while (true) {
      SocketChannel outside = listener.accept();
      Channel local = new Bootstrap()
          .group(loop)
          .channel(LocalChannel.class)
          .handler(new ToSocket(outside))
          .connect(inside)
          .syncUninterruptibly()
          .channel();
      Thread reader = new Thread(() -> copyToLocal(outside, local), "unix-bridge");
      reader.setDaemon(true);
      reader.start();
    }
  }

  /** The referee's bytes, as they arrive, to the gRPC server. */
  private static void copyToLocal(SocketChannel outside, Channel local) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
    try (outside) {
      while (outside.read(buffer) >= 0) {
        buffer.flip();
        local.writeAndFlush(Unpooled.copiedBuffer(buffer));
        buffer.clear();
      }
    } catch (IOException e) {
      // the referee hung up: close our side too
    } finally {
      local.close();
    }
  }

  /** The gRPC server's bytes to the referee (on the event loop; answers are small). */
  private static final class ToSocket extends ChannelInboundHandlerAdapter {
    private final SocketChannel outside;

    ToSocket(SocketChannel outside) {
      this.outside = outside;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws IOException {
      ByteBuf bytes = (ByteBuf) msg;
      try {
        for (ByteBuffer part : bytes.nioBuffers()) {
          while (part.hasRemaining()) {
            outside.write(part);
          }
        }
      } finally {
        bytes.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws IOException {
      outside.close();
    }
  }
}

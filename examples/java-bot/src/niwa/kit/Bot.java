// Starter kit: a niwa bot in Java that plays any game.
//
// The referee starts the JVM with NIWA_SOCKET set; the bot serves niwa.v1.Bot (code
// generated from proto/niwa/v1/bot.proto by ./build.sh), prints READY, and answers each
// Act with an index into the legal actions. Observations and actions arrive as JSON
// text; Gson parses them. The choice is random, drawn from the match seed and the
// decision number only, so asking the same question twice gives the same answer
// (`niwa replay ask` relies on that). Replace choose() with your own strategy.
//
// The Unix socket: Debian's grpc-java serves through Netty, whose Unix-socket transport
// needs a native library Debian does not ship. So the gRPC server listens on an
// in-JVM Netty address and UnixBridge carries the referee's bytes between the socket
// (opened with the JDK's own Unix-socket support) and that address.
package niwa.kit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalServerChannel;
import java.util.ArrayList;
import java.util.List;
import niwa.v1.BotGrpc;
import niwa.v1.BotOuterClass.ActReply;
import niwa.v1.BotOuterClass.ActRequest;
import niwa.v1.BotOuterClass.FinishReply;
import niwa.v1.BotOuterClass.FinishRequest;
import niwa.v1.BotOuterClass.StartReply;
import niwa.v1.BotOuterClass.StartRequest;
import niwa.v1.BotOuterClass.Thinking;

public final class Bot extends BotGrpc.BotImplBase {
  private long seed; // written by Start, read by Act: the referee never overlaps them

  /** splitmix64: one well-mixed 64-bit number from its input. */
  static long mix(long x) {
    x += 0x9e3779b97f4a7c15L;
    x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
    return x ^ (x >>> 31);
  }

  record Choice(int index, String debug) {}

  /** Your strategy: the observation and the legal actions, parsed. */
  static Choice choose(JsonObject observation, List<JsonElement> legal, long seed, long decision) {
    int index = (int) Long.remainderUnsigned(mix(seed ^ mix(decision)), legal.size());
    String keys = String.join(" ", new java.util.TreeSet<>(observation.keySet()));
    return new Choice(index, "observation keys: " + keys + "\naction " + legal.get(index));
  }

  @Override
  public void start(StartRequest request, StreamObserver<StartReply> reply) {
    seed = request.getSeed();
    System.err.printf("playing %s as seat %d of %d%n",
        request.getVersion(), request.getSeat(), request.getPlayers());
    reply.onNext(StartReply.newBuilder().setName("java-example").setVersion("1.0.0").build());
    reply.onCompleted();
  }

  @Override
  public void act(ActRequest request, StreamObserver<ActReply> reply) {
    List<JsonElement> legal = new ArrayList<>();
    for (String text : request.getLegalActionsJsonList()) {
      legal.add(JsonParser.parseString(text));
    }
    if (legal.isEmpty()) {
      reply.onError(Status.INVALID_ARGUMENT.withDescription("no legal actions").asException());
      return;
    }
    JsonObject observation = JsonParser.parseString(request.getObservationJson()).getAsJsonObject();
    Choice choice = choose(observation, legal, seed, request.getDecision());
    // note: one short line beside the move; debug: kept in the replay and shown by
    // `niwa replay show --at N` and `niwa play --debug` (the referee cuts it at 2048
    // bytes of UTF-8).
    // thinking (optional, private like debug): what the viewer draws. A share per legal
    // action in [0, 1] (this bot picks uniformly), a value per seat in [0, 1] (none
    // here: it has no estimate), and the line it expects, as JSON.
    Thinking.Builder thinking = Thinking.newBuilder()
        .addPvJson(request.getLegalActionsJson(choice.index()));
    for (int i = 0; i < legal.size(); i++) {
      thinking.addShares(1.0 / legal.size());
    }
    reply.onNext(ActReply.newBuilder()
        .setIndex(choice.index())
        .setNote("picked " + (choice.index() + 1) + " of " + legal.size())
        .setDebug(choice.debug())
        .setThinking(thinking)
        .build());
    reply.onCompleted();
  }

  @Override
  public void finish(FinishRequest request, StreamObserver<FinishReply> reply) {
    reply.onNext(FinishReply.getDefaultInstance());
    reply.onCompleted();
  }

  public static void main(String[] args) throws Exception {
    String socket = System.getenv("NIWA_SOCKET");
    if (socket == null) {
      System.err.println("NIWA_SOCKET is not set: the referee starts this bot (niwa play GAME --bot DIR)");
      System.exit(2);
    }
    // One event-loop thread for gRPC and the bridge: a bot has 128 tasks and 1 CPU.
    EventLoopGroup loop = new DefaultEventLoopGroup(1);
    LocalAddress inside = new LocalAddress("niwa-bot");
    Server server = NettyServerBuilder.forAddress(inside)
        .channelType(LocalServerChannel.class)
        .bossEventLoopGroup(loop)
        .workerEventLoopGroup(loop)
        .directExecutor() // answer on the event loop: no thread hop per call
        .addService(new Bot())
        .build()
        .start();
    UnixBridge bridge = UnixBridge.listen(socket, inside, loop);
    System.out.print("READY\n"); // one write, its own line
    System.out.flush();
    bridge.serve(); // until SIGTERM ends the JVM
    server.shutdownNow();
  }
}

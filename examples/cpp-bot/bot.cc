// Starter kit: a niwa bot in C++ that plays any game.
//
// The referee starts ./bot with NIWA_SOCKET set; the bot serves niwa.v1.Bot (code
// generated from proto/niwa/v1/bot.proto by ./build.sh) on that Unix socket, prints
// READY, and answers each Act with an index into the legal actions. Observations and
// actions arrive as JSON text; nlohmann::json parses them. The choice is random, drawn
// from the match seed and the decision number only, so asking the same question twice
// gives the same answer (`niwa replay ask` relies on that). Replace choose() with
// your own strategy.
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "niwa/v1/bot.grpc.pb.h"

namespace {

using nlohmann::json;

// splitmix64: one well-mixed 64-bit number from (seed, decision).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct Choice {
  int index;
  std::string debug;
};

// Your strategy goes here: the observation and the legal actions, parsed.
Choice choose(const json& observation, const std::vector<json>& legal, std::uint64_t seed,
              std::int64_t decision) {
  std::uint64_t draw = mix(seed ^ mix(static_cast<std::uint64_t>(decision)));
  int index = static_cast<int>(draw % legal.size());
  std::string keys;
  for (const auto& item : observation.items()) keys += (keys.empty() ? "" : " ") + item.key();
  return {index, "observation keys: " + keys + "\naction " + legal[index].dump()};
}

class Bot final : public niwa::v1::Bot::Service {
 public:
  grpc::Status Start(grpc::ServerContext*, const niwa::v1::StartRequest* request,
                     niwa::v1::StartReply* reply) override {
    seed_ = request->seed();
    std::cerr << "playing " << request->version() << " as seat " << request->seat() << " of "
              << request->players() << std::endl;
    reply->set_name("cpp-example");
    reply->set_version("1.0.0");
    return grpc::Status::OK;
  }

  grpc::Status Act(grpc::ServerContext*, const niwa::v1::ActRequest* request,
                   niwa::v1::ActReply* reply) override {
    std::vector<json> legal;
    for (const auto& text : request->legal_actions_json()) legal.push_back(json::parse(text));
    if (legal.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, "no legal actions"};
    Choice choice = choose(json::parse(request->observation_json()), legal, seed_,
                           request->decision());
    reply->set_index(choice.index);
    // note: one short line beside the move; debug: kept in the replay and shown by
    // `niwa replay show --at N` and `niwa play --debug` (the referee cuts it at 2048
    // bytes; cutting it here could split a UTF-8 character, which gRPC refuses).
    reply->set_note("picked " + std::to_string(choice.index + 1) + " of " +
                    std::to_string(legal.size()));
    reply->set_debug(choice.debug);
    // thinking (optional, private like debug): what the viewer draws. A share per legal
    // action in [0, 1] (this bot picks uniformly), a value per seat in [0, 1] (none
    // here: it has no estimate), and the line it expects, as JSON.
    niwa::v1::Thinking* thinking = reply->mutable_thinking();
    for (std::size_t i = 0; i < legal.size(); ++i) thinking->add_shares(1.0 / legal.size());
    thinking->add_pv_json(legal[choice.index].dump());
    return grpc::Status::OK;
  }

  grpc::Status Finish(grpc::ServerContext*, const niwa::v1::FinishRequest*,
                      niwa::v1::FinishReply*) override {
    return grpc::Status::OK;
  }

 private:
  std::uint64_t seed_ = 0;  // written by Start, read by Act: the referee never overlaps them
};

}  // namespace

int main() {
  const char* socket = std::getenv("NIWA_SOCKET");
  if (socket == nullptr) {
    std::cerr << "NIWA_SOCKET is not set: the referee starts this bot (niwa play GAME --bot DIR)"
              << std::endl;
    return 2;
  }
  Bot service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(std::string("unix:") + socket, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::cerr << "cannot listen on " << socket << std::endl;
    return 1;
  }
  std::cout << "READY\n" << std::flush;  // one write, its own line
  server->Wait();  // until SIGTERM ends the process
  return 0;
}

// Example niwa bot in JavaScript: serves niwa.v1.Bot from the same bot.proto.
//
// The referee starts `node bot.js` with NIWA_SOCKET set; we listen on that Unix
// socket, print READY, and answer each Act with an index into the legal actions.
// Observations and actions arrive as JSON text. This bot picks uniformly at random
// from a generator seeded by (match seed, decision), so asking it the same
// question twice gives the same answer.
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const definition = protoLoader.loadSync(path.join(__dirname, "proto/niwa/v1/bot.proto"), {
  keepCase: true, // field names exactly as in the .proto (legal_actions_json, ...)
  longs: String, // int64/uint64 arrive as decimal strings
  defaults: true,
  oneofs: true,
});
const niwa = grpc.loadPackageDefinition(definition).niwa.v1;

let seed = 0n;

// mulberry32: a tiny deterministic generator, seeded from the match seed and decision.
function generator(decision) {
  let a = Number((seed ^ (BigInt(decision) * 0x9e3779b97f4a7c15n)) & 0xffffffffn) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const handlers = {
  Start(call, callback) {
    seed = BigInt(call.request.seed);
    callback(null, { name: "js-example", version: "1.0.0" });
  },
  Act(call, callback) {
    const request = call.request;
    const legal = request.legal_actions_json.map((text) => JSON.parse(text));
    const draw = generator(request.decision)();
    const index = Math.floor(draw * legal.length);
    // `note`: one short line shown beside the move (cut at 200 characters).
    // `debug`: optional text for this decision, several lines if you like (at most
    // 2048 bytes of UTF-8; longer is cut with a marker, not refused). It is kept in the
    // replay and shown by `niwa replay show --at N` and `niwa play --debug`.
    // `thinking` (optional, private like debug): what the viewer draws. A share per
    // legal action in [0, 1] (this bot picks uniformly), a value per seat in [0, 1]
    // (none here), and the line it expects, as JSON.
    callback(null, {
      index,
      note: `picked ${index + 1} of ${legal.length}`,
      debug: `draw ${draw.toFixed(6)} in [0, 1)\naction ${request.legal_actions_json[index]}`,
      thinking: {
        shares: legal.map(() => 1 / legal.length),
        pv_json: [request.legal_actions_json[index]],
      },
    });
  },
  Finish(call, callback) {
    callback(null, {});
  },
};

const server = new grpc.Server();
server.addService(niwa.Bot.service, handlers);
server.bindAsync(`unix:${process.env.NIWA_SOCKET}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    console.error(`cannot listen on ${process.env.NIWA_SOCKET}: ${err.message}`);
    process.exit(1);
  }
  console.log("READY");
});
process.on("SIGTERM", () => server.forceShutdown());

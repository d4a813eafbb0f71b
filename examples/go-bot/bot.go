// Starter kit: a niwa bot in Go that plays any game.
//
// The referee starts ./bot with NIWA_SOCKET set; the bot serves niwa.v1.Bot (code
// generated from proto/niwa/v1/bot.proto by ./build.sh) on that Unix socket, prints
// READY, and answers each Act with an index into the legal actions. Observations and
// actions arrive as JSON text; encoding/json parses them. The choice is random, drawn
// from the match seed and the decision number only, so asking the same question twice
// gives the same answer (`niwa replay ask` relies on that). Replace choose() with your
// own strategy.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "niwabot/niwapb"
)

// mix is splitmix64: one well-mixed 64-bit number from its input.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// choose is your strategy: the observation and the legal actions, parsed. It returns
// an index into legal and a debug text.
func choose(observation map[string]any, legal []any, seed uint64, decision int64) (int, string) {
	index := int(mix(seed^mix(uint64(decision))) % uint64(len(legal)))
	keys := make([]string, 0, len(observation))
	for key := range observation {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	action, _ := json.Marshal(legal[index])
	return index, fmt.Sprintf("observation keys: %s\naction %s", strings.Join(keys, " "), action)
}

type bot struct {
	pb.UnimplementedBotServer
	seed uint64 // written by Start, read by Act: the referee never overlaps them
}

func (b *bot) Start(_ context.Context, request *pb.StartRequest) (*pb.StartReply, error) {
	b.seed = request.GetSeed()
	fmt.Fprintf(os.Stderr, "playing %s as seat %d of %d\n",
		request.GetVersion(), request.GetSeat(), request.GetPlayers())
	return &pb.StartReply{Name: "go-example", Version: "1.0.0"}, nil
}

func (b *bot) Act(_ context.Context, request *pb.ActRequest) (*pb.ActReply, error) {
	var observation map[string]any
	if err := json.Unmarshal([]byte(request.GetObservationJson()), &observation); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "observation: %v", err)
	}
	legal := make([]any, len(request.GetLegalActionsJson()))
	for i, text := range request.GetLegalActionsJson() {
		if err := json.Unmarshal([]byte(text), &legal[i]); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "legal action %d: %v", i, err)
		}
	}
	if len(legal) == 0 {
		return nil, status.Error(codes.InvalidArgument, "no legal actions")
	}
	index, debug := choose(observation, legal, b.seed, request.GetDecision())
	// Note: one short line beside the move; Debug: kept in the replay and shown by
	// `niwa replay show --at N` and `niwa play --debug` (the referee cuts it at 2048
	// bytes; cutting it here could split a UTF-8 character, which gRPC refuses).
	// Thinking (optional, private like Debug): what the viewer draws. A share per legal
	// action in [0, 1] (this bot picks uniformly), a value per seat in [0, 1] (none
	// here: it has no estimate), and the line it expects, as JSON.
	shares := make([]float64, len(legal))
	for i := range shares {
		shares[i] = 1 / float64(len(legal))
	}
	return &pb.ActReply{
		Choice: &pb.ActReply_Index{Index: int32(index)},
		Note:   fmt.Sprintf("picked %d of %d", index+1, len(legal)),
		Debug:  debug,
		Thinking: &pb.Thinking{
			Shares: shares,
			PvJson: []string{request.GetLegalActionsJson()[index]},
		},
	}, nil
}

func (b *bot) Finish(context.Context, *pb.FinishRequest) (*pb.FinishReply, error) {
	return &pb.FinishReply{}, nil
}

func main() {
	socket := os.Getenv("NIWA_SOCKET")
	if socket == "" {
		fmt.Fprintln(os.Stderr, "NIWA_SOCKET is not set: the referee starts this bot (niwa play GAME --bot DIR)")
		os.Exit(2)
	}
	listener, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot listen on %s: %v\n", socket, err)
		os.Exit(1)
	}
	server := grpc.NewServer()
	pb.RegisterBotServer(server, &bot{})
	os.Stdout.WriteString("READY\n") // one write, its own line
	// Serve until SIGTERM ends the process.
	if err := server.Serve(listener); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

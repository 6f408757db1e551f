// Package distrib runs one simulation across several processes: `opasim
// run --distributed N` is the coordinator, each `opasim member --join ADDR`
// a member (docs/distributed.md). The results are those of a run in one
// process: the same digest and the same figures.
//
// The coordinator (Coordinate) waits for the members to join, splits the
// network's groups among them (Partition, a Plan; MaxMembers bounds how
// many a topology can use), holds the global clock (the window loop of
// package sim, sim.Windows, the one the sequential and actor engines use)
// and measures the run from the totals the members send back, merged
// component by component. Each member (RunMember) builds the same network
// from the config it is sent, runs the groups of its part on the actor
// engine (actors.RunMember) window by window as the coordinator's ticks
// say, and sends the messages bound for other members' components in one
// batch a window.
//
// The processes talk over protoactor-go's remote layer (gRPC underneath);
// the messages are those of wire.proto (generated into wire.pb.go by
// `go generate`), the batches of model messages encoded by codec.go. A run
// carries a shared token; heartbeats and timeouts detect a member or a
// coordinator that stops, and periodic snapshots of the members' totals
// give partial results when a member fails (snapshot.go). CheckListen,
// CheckPeer and IsLoopback check the addresses before anything listens.
//
// Imports: actors, clock, fabric, fabric/topo, messages and sim; from
// outside the standard library protoactor-go (actor, remote), protobuf
// (the generated wire messages) and hdrhistogram-go (the latency
// histograms the totals carry).
package distrib

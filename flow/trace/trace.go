// Package trace replays a VEF trace (workloads/vef, the format of
// ../shared/spec/VEF.md) at flow level, on the dynamic engine: every
// message of the trace is a flow from the server of its sender to the
// server of its receiver, and every record is issued when the event of
// its own task it waits on has happened, after its delay (seed 001
// section 3.3.2's trace-driven simulation, with VEF's explicit
// causality).
//
// # Direction
//
// A message flows from its sender (src) to its receiver (dst), and a
// record waiting on a receipt (dep 2) waits for the matching message to
// have arrived, so for its sender to have issued and sent it. INRFlow's
// public trace reader swapped the two ends (its send events were queued
// at the receiver, towards the sender), which replays every message
// backwards: on a network or routing that is not symmetric (d-mod-k on a
// fat tree chooses the up path by the destination) the contention, hence
// the time, differs. TestDirection shows it.
//
// # Time and units
//
// Flow sizes are the messages' bytes and times are nanoseconds, so a link
// capacity is in bytes per ns (12.5: 100 Gb/s, the cycle-level default of
// 8 bytes every 0.64 ns cycle). The engine models no latency: a message's
// last byte leaves its sender when it arrives, so its send (dep 1) and its
// receipt (dep 2) happen at the same time, the flow's completion.
//
// Every time of the trace — the delays of dependent records, which stand
// for computation between communications, and the absolute times of
// independent records, computation since the start — is multiplied by
// Options.CPUFactor (INRFlow's CPU-scale factor): 1 replays them as
// traced, 2 models a CPU half as fast, 0.5 one twice as fast, 0
// communication alone.
//
// # Rules (the cycle-level replay's, package workloads/replay, without its
// cycles)
//
//   - A record waits on one event of its own task: nothing (dep 0: it is
//     issued at its time), the send or the receipt of a message (dep 1,
//     2), or the end of the task's part of a collective (dep 3); it is
//     issued at that event's time plus its delay.
//   - A message between two tasks on one server uses no link: it is sent
//     and received when issued. So is a message of 0 bytes.
//   - A collective is lowered to point-to-point messages in rounds by
//     package workloads/collective, with the algorithm Options.Algorithms
//     names for its op (the defaults otherwise). A task's part begins when
//     its record is issued and runs the rounds its rank takes part in, in
//     order: a round begins when the previous one ended, sends its message
//     then, and ends when its message has been sent and the one it
//     receives has arrived; the part ends with its last round (when it
//     begins, with none).
//   - A task ends with the last of its events; the execution time is the
//     last task's end.
//
// # Memory
//
// The trace is read once, whole, into a flow list with dependencies
// (dynamic.RunWith's form): a message is one flow (about 100 bytes with
// its dependency), a collective part one flow more than its rounds' sends
// and ends. The cycle-level replay reads in bounded memory; this one
// does not (the traces it is meant for, like the seed's, have up to a few
// million messages).
package trace

import (
	"errors"
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/route"
	"github.com/opasim/opasim/workloads/collective"
	"github.com/opasim/opasim/workloads/vef"
)

// Options are how a trace is replayed.
type Options struct {
	// CPUFactor multiplies every time of the trace (delays and
	// independent records' times): finite, at least 0.
	CPUFactor float64
	// Mapping places task i on server Mapping[i]; nil: Linear.
	Mapping []int32
	// Algorithms per collective op; an op not named takes its default
	// (collective.Algorithms).
	Algorithms map[vef.Op]string
	// SerialSends makes every server send its messages one at a time,
	// in the trace's order, as the cycle-level NIC sends the messages of
	// an SL one after another: a message that crosses a link starts once
	// it is issued and the previous such message from its server has
	// arrived (the flow level has no latency: arrived is sent). The
	// trace's order is the order of issue when each task's records come
	// in the order it issues them (program order) and one task runs on a
	// server; otherwise it is an approximation. The collectives' rounds
	// are not serialized.
	SerialSends bool

	// Limit, if set, is asked with the number of flows built so far every
	// time it reaches a power of two (from 2^16): an error it returns
	// ends the build (for a memory budget). Stop, if set, is asked every
	// few thousand records; once it says to stop, the build ends with
	// ErrStopped.
	Limit func(flows int64) error
	Stop  func() bool

	// reversed replays every message from its receiver to its sender,
	// as INRFlow's reader did: for the direction test only.
	reversed bool
}

// ErrStopped is what Build returns when Options.Stop said to stop.
var ErrStopped = errors.New("trace: stopped before it was read")

// MaxCPUFactor bounds Options.CPUFactor.
const MaxCPUFactor = 1e9

// Linear maps tasks tasks on servers servers in blocks of ⌈tasks/servers⌉
// consecutive tasks (task i on server i when there are servers enough),
// as the cycle-level replay's linear mapping does.
func Linear(tasks, servers int) []int32 {
	per := max(1, (tasks+servers-1)/max(servers, 1))
	m := make([]int32, tasks)
	for i := range m {
		m[i] = int32(i / per)
	}
	return m
}

// Plan is a trace as a flow list.
type Plan struct {
	Tasks    int
	Messages int64 // point-to-point messages
	Parts    int64 // collective parts
	Flows    []dynamic.Flow
	// Msg[id] is message id's flow.
	Msg []int32
	// events[t] lists the flows whose completions are task t's events.
	events [][]int32
	// chained[id] (Options.SerialSends): message id's flow's last
	// dependency is the previous message from its server, not part of
	// when the message is issued.
	chained []bool
}

// coll is one collective while its parts are read.
type coll struct {
	spec  collective.Spec
	comm  []int   // tasks by rank
	start []int32 // per rank, its part's start flow
	end   []int32 // per rank, its part's end flow, once lowered
	roots int
	gid   int64
	first int32 // its rounds' flows are [first, last), once lowered
	last  int32
}

// lower adds the flows of collective c's rounds (LowerCollective).
func (p *Plan) lower(c *coll, m []int32, reversed bool) {
	c.first = int32(len(p.Flows))
	defer func() { c.last = int32(len(p.Flows)) }()
	servers := make([]int32, len(c.comm))
	for r, task := range c.comm {
		servers[r] = m[task]
	}
	p.Flows, c.end = LowerCollective(p.Flows, &c.spec, c.start, servers, reversed, func(r int, flow int32) {
		task := c.comm[r]
		p.events[task] = append(p.events[task], flow)
	})
}

// LowerCollective appends to flows the flows of collective s's rounds,
// by the rules of the package doc: per rank, per round, its send (after
// the previous round's end; the rank's part begins with flow start[rank])
// and the round's end, a flow of size 0 on the rank's server after the
// send and the receive. servers[r] is rank r's server; reversed swaps
// every send's ends. event, if not nil, is told the flows of a rank's
// part that the replay counts as its events, in order: each of its sends,
// then its part's end. It returns the flows and, per rank, the flow that
// ends its part. The spec must be one Check accepts. The flow-level
// applications (package flow/workload) lower their collectives with it
// too.
func LowerCollective(flows []dynamic.Flow, s *collective.Spec, start []int32, servers []int32, reversed bool, event func(rank int, flow int32)) ([]dynamic.Flow, []int32) {
	size := s.Size
	if event == nil {
		event = func(int, int32) {}
	}
	parts := make([][]collective.Round, size)
	for r := range parts {
		parts[r] = s.Part(r, nil)
	}
	sends := map[int64]int32{} // transfer index → its flow
	next := int32(len(flows))
	for r := range parts { // number the flows first: rank by rank, round by round, send then end
		for _, rd := range parts[r] {
			if rd.Send != nil {
				sends[rd.Send.Index(size)] = next
				next++
			}
			next++
		}
	}
	end := make([]int32, size)
	for r := range parts {
		server := servers[r]
		prev := start[r]
		for _, rd := range parts[r] {
			var deps []int
			if t := rd.Send; t != nil {
				f := dynamic.Flow{Src: server, Dst: servers[t.To], Size: float64(t.Bytes), Deps: []int{int(prev)}}
				if reversed {
					f.Src, f.Dst = f.Dst, f.Src
				}
				i := int32(len(flows))
				flows = append(flows, f)
				event(r, i)
				deps = append(deps, int(i))
			}
			if t := rd.Recv; t != nil {
				deps = append(deps, int(sends[t.Index(size)]))
			}
			if rd.Send == nil { // a round that only receives begins when the previous one ended
				deps = append(deps, int(prev))
			}
			prev = int32(len(flows))
			flows = append(flows, dynamic.Flow{Src: server, Dst: server, Deps: deps})
		}
		end[r] = prev
		event(r, prev)
	}
	return flows, end
}

// isRoot tells the root's part of a rooted collective (VEF.md's op table),
// as the cycle-level replay does: the one whose sizes only the root has.
func isRoot(p *vef.Part) bool {
	switch p.Op {
	case vef.Broadcast, vef.Scatter:
		return p.SendBytes != 0
	case vef.Reduce, vef.Gather:
		return p.RecvBytes != 0
	}
	return false
}

func (o *Options) check(tasks, servers int) error {
	if !(o.CPUFactor >= 0 && o.CPUFactor <= MaxCPUFactor) {
		return fmt.Errorf("trace cpu factor: %v is not allowed: must be in [0, %g]", o.CPUFactor, float64(MaxCPUFactor))
	}
	if servers < 1 {
		return fmt.Errorf("trace servers: %d is not allowed: must be at least 1", servers)
	}
	if o.Mapping != nil {
		if len(o.Mapping) != tasks {
			return fmt.Errorf("trace mapping: %d tasks placed is not allowed: the trace has %d", len(o.Mapping), tasks)
		}
		for t, s := range o.Mapping {
			if s < 0 || int(s) >= servers {
				return fmt.Errorf("trace mapping: task %d on server %d is not allowed: must be a server in [0, %d)", t, s, servers)
			}
		}
	}
	for op, alg := range o.Algorithms {
		s := collective.Spec{Op: op, Algorithm: alg, Size: 1, SendBytes: []int64{0}, RecvBytes: []int64{0}}
		if err := s.Check(); err != nil {
			return fmt.Errorf("trace algorithms: %w", err)
		}
	}
	return nil
}

// Result is what a replay measured.
type Result struct {
	Tasks    int
	Messages int64
	Parts    int64
	Flows    int // flows run, the collectives' rounds and markers included
	// Execution is the last task's end (ns with the package's units).
	Execution float64
	// MessageLatency is the mean, over the messages delivered, of the
	// time from a message's issue (its record's event and delay, or its
	// time) to its arrival, as the cycle-level replay's message latency:
	// with Options.SerialSends it includes the wait for the server's
	// earlier messages. 0 with no message delivered.
	MessageLatency float64
	// TaskEnds is each task's end: its last event.
	TaskEnds []float64
	Batches  int
	Resolved int64
	// Interrupted: dynamic.Options.Interrupt ended the run; Execution
	// covers what completed by then.
	Interrupted bool
}

// Run replays the plan on r's network. A flow whose servers the network
// does not connect (failed cables) ends the run with a
// *dynamic.NoPathError naming them.
func (p *Plan) Run(r route.Router, opt dynamic.Options) (*Result, error) {
	opt.NoPathIsError = true
	res, err := dynamic.RunWith(r, p.Flows, opt)
	if err != nil {
		return nil, err
	}
	return p.Summarize(res), nil
}

// Summarize is the replay's result from a run of the plan's flows
// (dynamic.RunWith of p.Flows).
func (p *Plan) Summarize(res *dynamic.Result) *Result {
	out := &Result{Tasks: p.Tasks, Messages: p.Messages, Parts: p.Parts, Flows: len(p.Flows), TaskEnds: make([]float64, p.Tasks),
		Batches: res.Batches, Resolved: res.Resolved, Interrupted: res.Interrupted}
	for t, evs := range p.events {
		for _, i := range evs {
			out.TaskEnds[t] = max(out.TaskEnds[t], res.Finish[i])
		}
		if !math.IsInf(out.TaskEnds[t], 1) {
			out.Execution = max(out.Execution, out.TaskEnds[t])
		}
	}
	sum, n := 0.0, 0
	for id, i := range p.Msg {
		if math.IsInf(res.Finish[i], 1) {
			continue
		}
		sum += res.Finish[i] - p.issued(int32(id), res)
		n++
	}
	if n > 0 {
		out.MessageLatency = sum / float64(n)
	}
	return out
}

// issued is when message id was issued: its flow's start, but for the
// wait for the server's previous message (Options.SerialSends), which
// is left out: its time if it waits on no event, otherwise the last of
// its events' completions plus its delay.
func (p *Plan) issued(id int32, res *dynamic.Result) float64 {
	i := p.Msg[id]
	if int(id) >= len(p.chained) || !p.chained[id] {
		return res.Start[i]
	}
	f := &p.Flows[i]
	deps := f.Deps[:len(f.Deps)-1]
	if len(deps) == 0 {
		return f.Start
	}
	t := math.Inf(-1)
	for _, d := range deps {
		t = max(t, res.Finish[d])
	}
	return max(f.Start, t+f.Delay)
}

// Replay builds the trace's plan and runs it.
func Replay(r route.Router, rd *vef.Reader, opt Options, dopt dynamic.Options) (*Result, error) {
	p, err := Build(rd, r.Graph().NumServers(), opt)
	if err != nil {
		return nil, err
	}
	return p.Run(r, dopt)
}

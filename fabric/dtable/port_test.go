package dtable

import (
	"testing"

	"github.com/opasim/opasim/fabric/qos"
	"github.com/opasim/opasim/fabric/sched"
)

// port is one output port driving the real dtable scheduler (sched
// registry "dtable") cycle by cycle in the eligible view, with downstream
// credits always available: one VL per SL (SL i → SC i → VL i), a message
// of SL i is mtu[i] credits and holds the link mtu[i]·fpc cycles, and the
// scheduler decides in every cycle the link is free and some SL has a
// message queued. A backlogged SL always has one queued.
//
// A head's wait runs from the moment its SL has a message queued and none
// of its own on the link (its arrival at an idle SL, or the end of the
// SL's previous message) to the cycle it starts to be sent.
type port struct {
	s         sched.Scheduler
	mtu       []int
	fpc       int
	backlog   []bool // always one message queued
	queued    []int  // messages queued, besides the backlog
	readyAt   []int  // cycle the SL's head started to wait; valid while it has one
	endOf     []int  // cycle the SL's last message leaves the link
	free      int    // first cycle the link is free
	maxWait   []int
	credits   []int // sent per SL
	decisions []int // cycles of the decisions made
	heads     []sched.Head
}

func newPort(t *testing.T, table []sched.Entry, mtu []int, fpc int) *port {
	t.Helper()
	n := len(mtu)
	cfg := sched.Config{NumVLs: n, Table: table}
	sl2sc, sc2vl := make([][]int, n), make([]int, n)
	for i, m := range mtu {
		cfg.SLs = append(cfg.SLs, sched.SL{Name: itoa(i), MTUCredits: m})
		sl2sc[i], sc2vl[i] = []int{i}, i
	}
	cfg.Tables = qos.NewTables(sl2sc, sc2vl)
	s, err := sched.Default().New("dtable", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &port{s: s, mtu: mtu, fpc: fpc, backlog: make([]bool, n), queued: make([]int, n),
		readyAt: make([]int, n), endOf: make([]int, n), maxWait: make([]int, n), credits: make([]int, n)}
}

// backlogAll keeps every SL but skip backlogged from cycle 0.
func (p *port) backlogAll(skip int) {
	for i := range p.backlog {
		p.backlog[i] = i != skip
	}
}

func (p *port) hasHead(sl int) bool { return p.backlog[sl] || p.queued[sl] > 0 }

// startBacklog makes SL sl backlogged from cycle now on.
func (p *port) startBacklog(sl, now int) {
	if !p.hasHead(sl) {
		p.readyAt[sl] = max(now, p.endOf[sl])
	}
	p.backlog[sl] = true
}

// arrive queues one message of SL sl at cycle now.
func (p *port) arrive(sl, now int) {
	if !p.hasHead(sl) {
		p.readyAt[sl] = max(now, p.endOf[sl])
	}
	p.queued[sl]++
}

// step runs cycle now after its arrivals; it returns the SL that starts to
// be sent, or -1.
func (p *port) step(now int) int {
	if now < p.free {
		return -1
	}
	p.heads = p.heads[:0]
	for sl := range p.mtu {
		if p.hasHead(sl) {
			p.heads = append(p.heads, sched.Head{VL: sl, SC: sl, SL: sl, Credits: p.mtu[sl], Eligible: true})
		}
	}
	if len(p.heads) == 0 {
		return -1
	}
	i, _ := sched.Decide(p.s, p.heads)
	sl := p.heads[i].SL
	p.decisions = append(p.decisions, now)
	p.maxWait[sl] = max(p.maxWait[sl], now-p.readyAt[sl])
	p.credits[sl] += p.mtu[sl]
	p.free = now + p.mtu[sl]*p.fpc
	p.endOf[sl] = p.free
	if !p.backlog[sl] {
		p.queued[sl]--
	}
	if p.hasHead(sl) {
		p.readyAt[sl] = p.free
	}
	return sl
}

// run steps cycles [0, cycles).
func (p *port) run(cycles int) {
	for now := 0; now < cycles; now++ {
		p.step(now)
	}
}

// share is SL sl's part of the credits sent.
func (p *port) share(sl int) float64 {
	total := 0
	for _, c := range p.credits {
		total += c
	}
	return float64(p.credits[sl]) / float64(total)
}

// arrivalWait: SL sl idle, every other SL backlogged from cycle 0; one
// message of sl arrives at cycle at. It returns the cycles the head waits.
func arrivalWait(t *testing.T, table []sched.Entry, mtu []int, fpc, sl, at int) int {
	p := newPort(t, table, mtu, fpc)
	p.backlogAll(sl)
	for now := 0; ; now++ {
		if now == at {
			p.arrive(sl, now)
		}
		if p.step(now) == sl {
			return now - at
		}
	}
}

// onOffWait: every other SL backlogged; SL sl's messages come one at a
// time, the next gap[k] cycles after the previous one left the link
// (gap 0: it arrives in the cycle of the next decision, so sl stays active
// with its accumulated weight; gap ≥ 1: sl is idle at that decision and
// loses it), for the given number of messages. It returns the longest wait.
func onOffWait(t *testing.T, table []sched.Entry, mtu []int, fpc, sl int, gaps []int, messages int) int {
	p := newPort(t, table, mtu, fpc)
	p.backlogAll(sl)
	next, k := 0, 0
	for now := 0; k < messages; now++ {
		if now == next {
			p.arrive(sl, now)
		}
		if p.step(now) == sl {
			next = p.free + gaps[k%len(gaps)]
			k++
		}
	}
	return p.maxWait[sl]
}

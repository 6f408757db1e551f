package sched

import (
	"fmt"
	"testing"
)

// link is a pure single-link harness: one output port with one queue per VL,
// no credit limits unless blocked says so, one packet sent per decision
// (time is counted in decisions, one per cycle). Packets are MTUCredits
// long. A source either keeps one packet of each SC of its SL queued at all
// times (backlogged; SCs sharing a VL then alternate at its head) or adds
// one packet every period decisions, taking the SL's SCs in turn (CBR).
//
// blocked(vl, cycle) says that VL vl's head lacks credits at that cycle. In
// the eligible view (table false) a blocked head is not shown to the
// scheduler; in the table view it is shown with Eligible false and a pick
// of it is a wasted cycle. With feedback too (the table_feedback view) a
// wasted pick is reported to the scheduler by Miss instead of Commit. As at
// a port, a cycle with no eligible head makes no decision.
type link struct {
	cfg      Config
	s        Scheduler
	table    bool
	feedback bool
	blocked  func(vl, cycle int) bool
	queues   [][]packet // per VL, FIFO
	nextSC   []int      // per SL, the CBR source's next SC (index into SL2SC[sl])
	sent     []int      // packets sent per SL
	credits  []int      // credits sent per SL
	waits    []int      // per SL, sum of decisions from arrival to sending
	heads    []Head
	wasted   int
	log      []string // with record: per cycle "VLn" sent, "xVLn" wasted, "-" no decision
	record   bool
}

type packet struct{ sc, arrival int }

// source feeds one SL: period 0 is backlogged, otherwise CBR starting at
// decision phase.
type source struct{ sl, period, phase int }

func newLink(t *testing.T, name string, cfg Config) *link {
	t.Helper()
	s, err := Default().New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := len(cfg.SLs)
	return &link{cfg: cfg, s: s, queues: make([][]packet, cfg.NumVLs),
		nextSC: make([]int, n), sent: make([]int, n), credits: make([]int, n), waits: make([]int, n)}
}

// run makes the given number of decisions.
func (l *link) run(sources []source, decisions int) {
	for now := 0; now < decisions; now++ {
		for _, src := range sources {
			l.arrive(src, now)
		}
		l.heads = l.heads[:0]
		any := false
		for vl, q := range l.queues {
			if len(q) == 0 {
				continue
			}
			ok := l.blocked == nil || !l.blocked(vl, now)
			if !ok && !l.table {
				continue
			}
			h := headOfSC(l.cfg, vl, q[0].sc)
			h.Eligible = ok
			l.heads = append(l.heads, h)
			any = any || ok
		}
		if !any {
			l.note("-")
			continue
		}
		decide := Decide
		if l.feedback {
			decide = DecideFeedback
		}
		i, hit := decide(l.s, l.heads)
		if !hit {
			l.wasted++
			l.note(fmt.Sprintf("xVL%d", l.heads[i].VL))
			continue
		}
		l.note(fmt.Sprintf("VL%d", l.heads[i].VL))
		l.send(l.heads[i], now)
	}
}

func (l *link) note(s string) {
	if l.record {
		l.log = append(l.log, s)
	}
}

func (l *link) arrive(src source, now int) {
	scs := l.cfg.SCsOf(src.sl)
	if src.period == 0 {
		for _, sc := range scs {
			if vl := l.cfg.SC2VL[sc]; !l.holds(vl, sc) {
				l.queues[vl] = append(l.queues[vl], packet{sc, now})
			}
		}
		return
	}
	if now >= src.phase && (now-src.phase)%src.period == 0 {
		sc := scs[l.nextSC[src.sl]]
		l.nextSC[src.sl] = (l.nextSC[src.sl] + 1) % len(scs)
		vl := l.cfg.SC2VL[sc]
		l.queues[vl] = append(l.queues[vl], packet{sc, now})
	}
}

// holds reports whether VL vl has a packet of SC sc queued.
func (l *link) holds(vl, sc int) bool {
	for _, p := range l.queues[vl] {
		if p.sc == sc {
			return true
		}
	}
	return false
}

func (l *link) send(h Head, now int) {
	p := l.queues[h.VL][0]
	l.queues[h.VL] = l.queues[h.VL][1:]
	l.sent[h.SL]++
	l.credits[h.SL] += h.Credits
	l.waits[h.SL] += now - p.arrival
}

// backlogged is a source list with every SL of cfg always backlogged.
func backlogged(cfg Config) []source {
	src := make([]source, len(cfg.SLs))
	for i := range src {
		src[i] = source{sl: i}
	}
	return src
}

// percent is 100 * x[i] / sum(x).
func percent(x []int, i int) float64 {
	sum := 0
	for _, v := range x {
		sum += v
	}
	return 100 * float64(x[i]) / float64(sum)
}

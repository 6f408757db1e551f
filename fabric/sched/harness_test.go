package sched

import "testing"

// link is a pure single-link harness: one output port with one queue per VL,
// no credit limits, one packet sent per decision (time is counted in
// decisions). Packets are MTUCredits long. A source either keeps one packet
// of each SC of its SL queued at all times (backlogged; SCs sharing a VL then
// alternate at its head) or adds one packet every period decisions, taking
// the SL's SCs in turn (CBR).
type link struct {
	cfg     Config
	s       Scheduler
	queues  [][]packet // per VL, FIFO
	nextSC  []int      // per SL, the CBR source's next SC (index into SCs)
	sent    []int      // packets sent per SL
	credits []int      // credits sent per SL
	waits   []int      // per SL, sum of decisions from arrival to sending
	heads   []Head
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
		for vl, q := range l.queues {
			if len(q) > 0 {
				l.heads = append(l.heads, headOfSC(l.cfg, vl, q[0].sc))
			}
		}
		if len(l.heads) > 0 {
			i := l.s.Pick(l.heads)
			l.s.Commit(l.heads, i)
			l.send(l.heads[i], now)
		}
	}
}

func (l *link) arrive(src source, now int) {
	scs := l.cfg.SLs[src.sl].SCs
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

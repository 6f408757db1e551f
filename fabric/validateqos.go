package fabric

import (
	"fmt"
	"math"
	"strings"

	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/sched"
)

func (c *Config) validateQoS(p *Problems, schedulers *sched.Registry) {
	q := &c.QoS
	if !schedulers.Has(q.Scheduler) {
		p.NotAllowed("qos.scheduler", fmt.Sprintf("%q", q.Scheduler), "must be one of: "+strings.Join(schedulers.Names(), ", "))
	}
	derivesTable := schedulers.NeedsTable(q.Scheduler) && q.DTableFile == ""
	if q.SchedulerView != "" && !contains(SchedulerViews(), q.SchedulerView) {
		p.NotAllowed("qos.scheduler_view", fmt.Sprintf("%q", q.SchedulerView), "must be one of: "+strings.Join(SchedulerViews(), ", "))
	}
	if len(q.SLs) == 0 || len(q.SLs) > 32 {
		p.NotAllowed("qos.sls", len(q.SLs), "must list 1 to 32 service levels")
	}
	if len(q.SC2VL) == 0 || len(q.SC2VL) > 32 {
		p.NotAllowed("qos.sc2vl", len(q.SC2VL), "must map 1 to 32 service channels")
	}
	for sc, vl := range q.SC2VL {
		if vl < 0 || vl >= c.Switch.VLs {
			p.NotAllowed(fmt.Sprintf("qos.sc2vl[%d]", sc), vl, fmt.Sprintf("must be a VL in [0, %d)", c.Switch.VLs))
		}
	}
	c.validateSLs(p, derivesTable)
	c.validateVLArb(p)
	c.validatePreemption(p)
	c.validateHardware(p)
}

// validatePreemption checks qos.preemption: every key and value names an SL
// of qos.sls, no SL preempts itself, the relation has no cycle (a packet
// could otherwise be interrupted for ever in turn), min_flits is at least 1,
// and the switch's latencies let news of a late tail overtake the tail
// (preempt.go): with λ = floor(AT/2), λ ≤ sb_in + x_mport and
// 2λ ≤ sb_in + x_mport + x_central + sb_out.
func (c *Config) validatePreemption(p *Problems) {
	q := &c.QoS.Preemption
	if !q.Enabled() {
		if q.MinFlits != 0 {
			p.NotAllowed("qos.preemption.min_flits", q.MinFlits, "must be 0 when qos.preemption.preempts is empty")
		}
		return
	}
	idx := map[string]int{}
	var names []string
	for i, sl := range c.QoS.SLs {
		idx[sl.Name] = i
		names = append(names, sl.Name)
	}
	known := "must name an SL of qos.sls: " + strings.Join(names, ", ")
	edges := map[int][]int{}
	for _, a := range sortedKeys(q.Preempts) {
		ia, ok := idx[a]
		if !ok {
			p.NotAllowed("qos.preemption.preempts", fmt.Sprintf("%q", a), known)
			continue
		}
		for i, b := range q.Preempts[a] {
			f := fmt.Sprintf("qos.preemption.preempts.%s[%d]", a, i)
			ib, ok := idx[b]
			switch {
			case !ok:
				p.NotAllowed(f, fmt.Sprintf("%q", b), known)
			case ib == ia:
				p.NotAllowed(f, fmt.Sprintf("%q", b), "must be another SL than "+a+" (an SL does not preempt itself)")
			default:
				edges[ia] = append(edges[ia], ib)
			}
		}
	}
	if cyc := preemptionCycle(edges, len(names)); cyc != nil {
		var path []string
		for _, i := range cyc {
			path = append(path, names[i])
		}
		p.NotAllowed("qos.preemption.preempts", strings.Join(path, " > "),
			"must have no cycle (SLs preempting each other in turn could interrupt a packet for ever)")
	}
	if q.MinFlits < 1 {
		p.NotAllowed("qos.preemption.min_flits", q.MinFlits, "must be at least 1 (flits an interrupted packet has sent)")
	}
	l := &c.Switch.Latency
	lambda := l.AT / 2
	if lambda > l.SBIn+l.XMPort || 2*lambda > l.SBIn+l.XMPort+l.XCentral+l.SBOut {
		p.NotAllowed("switch.latency", fmt.Sprintf("at %d, sb_in %d, x_mport %d, x_central %d, sb_out %d", l.AT, l.SBIn, l.XMPort, l.XCentral, l.SBOut),
			"with qos.preemption, floor(at/2) must be at most sb_in + x_mport, and twice it at most sb_in + x_mport + x_central + sb_out (news of a late tail must overtake the tail)")
	}
}

// preemptionCycle returns a cycle of the relation edges over n SLs, or nil.
func preemptionCycle(edges map[int][]int, n int) []int {
	state := make([]int, n) // 0 new, 1 on the path, 2 done
	var path []int
	var visit func(v int) []int
	visit = func(v int) []int {
		state[v] = 1
		path = append(path, v)
		for _, w := range edges[v] {
			if state[w] == 1 {
				for i, x := range path {
					if x == w {
						return append(append([]int{}, path[i:]...), w)
					}
				}
			}
			if state[w] == 0 {
				if c := visit(w); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[v] = 2
		return nil
	}
	for v := 0; v < n; v++ {
		if state[v] == 0 {
			if c := visit(v); c != nil {
				return c
			}
		}
	}
	return nil

}

// validateHardware checks the schedulers' hardware constraints
// (docs/schedulers.md, "Hardware constraints"). Whether a table and its
// weights fit them is the scheduler's check, when the network is built.
func (c *Config) validateHardware(p *Problems) {
	q := &c.QoS
	if q.DecisionCycles < 0 || q.DecisionCycles > MaxDecisionCycles {
		p.NotAllowed("qos.decision_cycles", q.DecisionCycles, fmt.Sprintf("must be in [1, %d] cycles (0 or absent: 1)", MaxDecisionCycles))
	}
	if q.CounterBits < 0 || q.CounterBits > sched.MaxCounterBits {
		p.NotAllowed("qos.counter_bits", q.CounterBits, fmt.Sprintf("must be in [0, %d] (0: unlimited)", sched.MaxCounterBits))
	}
	if q.CounterOverflow != "" && q.CounterOverflow != OverflowSaturate && q.CounterOverflow != OverflowWrap {
		p.NotAllowed("qos.counter_overflow", fmt.Sprintf("%q", q.CounterOverflow), "must be one of: saturate, wrap")
	}
	if q.TableEntries < 0 {
		p.NotAllowed("qos.table_entries", q.TableEntries, "must be at least 0 (0: no limit)")
	}
	if q.DecisionCycles > 1 && q.Preemption.Enabled() {
		p.NotAllowed("qos.decision_cycles", q.DecisionCycles,
			"must be 1 (or absent) with qos.preemption: how long a preemption decision takes is not modelled")
	}
}

// validateSchedulerFits builds the scheduler once, when qos.counter_bits
// or qos.table_entries constrain it, to refuse a table or a weight that
// does not fit them before the run (the scheduler's factory says which).
// A table from qos.dtable_file is checked when the run reads it, at Build.
func (c *Config) validateSchedulerFits(p *Problems, schedulers *sched.Registry) {
	q := &c.QoS
	if q.CounterBits == 0 && q.TableEntries == 0 {
		return
	}
	sc := c.schedConfig(c.SCTables())
	if schedulers.NeedsTable(q.Scheduler) {
		if q.DTableFile != "" {
			return
		}
		res, err := dtable.Configure(c.DTableRequest())
		if err != nil {
			return // reported by Build, with the DTable configuration's own problems
		}
		sc.Table = res.Table
	}
	if _, err := schedulers.New(q.Scheduler, sc); err != nil {
		p.NotAllowed("qos.counter_bits, qos.table_entries", fmt.Sprintf("%d, %d", q.CounterBits, q.TableEntries),
			fmt.Sprintf("the %s scheduler's weights and tables must fit them: %v", q.Scheduler, err))
	}
}

// validateVLArb checks the vlarb scheduler's keys, whichever scheduler
// runs: every entry names an SL of qos.sls and weighs 0 or more credits,
// and tables that are given have an entry above 0 (given none, vlarb uses
// its default tables).
func (c *Config) validateVLArb(p *Problems) {
	q := &c.QoS
	positive := false
	for _, t := range []struct {
		key     string
		entries []VLArbEntry
	}{{"qos.vlarb_high", q.VLArbHigh}, {"qos.vlarb_low", q.VLArbLow}} {
		for i, e := range t.entries {
			f := fmt.Sprintf("%s[%d]", t.key, i)
			if e.SL < 0 || e.SL >= len(q.SLs) {
				p.NotAllowed(f+".sl", e.SL, fmt.Sprintf("must be an SL in [0, %d) (an index of qos.sls)", len(q.SLs)))
			}
			if e.Weight < 0 {
				p.NotAllowed(f+".weight", e.Weight, "must be at least 0 (credits; 0 skips the entry)")
			}
			positive = positive || e.Weight > 0
		}
	}
	if len(q.VLArbHigh)+len(q.VLArbLow) > 0 && !positive {
		p.NotAllowed("qos.vlarb_high, qos.vlarb_low", "every weight 0",
			"at least one entry must weigh more than 0 credits (or give neither table: SL 0 high, the others low, each one MTU)")
	}
	if q.VLArbHighLimit < VLArbUnlimited {
		p.NotAllowed("qos.vlarb_high_limit", q.VLArbHighLimit,
			fmt.Sprintf("must be %d (no limit) or at least 0 (credits the high-priority table sends in a row; 0: one packet)", VLArbUnlimited))
	}
}

// validateSLs checks every SL; derivesTable: the scheduler reads an
// arbitration table and no qos.dtable_file gives it, so the SLs' distances
// make it.
func (c *Config) validateSLs(p *Problems, derivesTable bool) {
	q := &c.QoS
	owner := map[int]string{}
	named := map[string]int{}
	sum := 0.0
	for i, sl := range q.SLs {
		f := fmt.Sprintf("qos.sls[%d]", i)
		if sl.Name == "" {
			p.NotAllowed(f+".name", `""`, "must be a non-empty name")
		} else if first, taken := named[sl.Name]; taken {
			p.NotAllowed(f+".name", fmt.Sprintf("%q", sl.Name), fmt.Sprintf("must be unique: qos.sls[%d] is named %q too", first, sl.Name))
		} else {
			named[sl.Name] = i
		}
		if len(sl.SCs) == 0 {
			p.NotAllowed(f+".scs", "[]", "must list at least one SC")
		}
		for _, sc := range sl.SCs {
			if sc < 0 || sc >= len(q.SC2VL) {
				p.NotAllowed(f+".scs", sc, fmt.Sprintf("must be an SC in [0, %d) (the length of qos.sc2vl)", len(q.SC2VL)))
			} else if o, taken := owner[sc]; taken {
				p.NotAllowed(f+".scs", sc, "SC already belongs to SL "+o+" (an SC carries one SL)")
			} else {
				owner[sc] = sl.Name
			}
		}
		if sl.MTUBytes < 0 {
			p.NotAllowed(f+".mtu_bytes", sl.MTUBytes, fmt.Sprintf("must be at least 1 (0 or absent: the default, %d)", DefaultMTUBytes))
		}
		p.AtLeast(f+".message_bytes", int64(sl.MessageBytes), 0)
		if derivesTable {
			p.AtLeast(f+".distance", int64(sl.Distance), 1)
		}
		if sl.Share < 0 || sl.Share > 1 || math.IsNaN(sl.Share) {
			p.NotAllowed(f+".share", sl.Share, "must be in [0, 1]")
		}
		if sl.SBTWeight < 0 {
			p.NotAllowed(f+".sbt_weight", sl.SBTWeight, "must be at least 0")
		}
		sum += sl.Share
	}
	if len(q.SLs) > 0 && math.Abs(sum-1) > 1e-6 {
		p.NotAllowed("qos.sls[*].share", fmt.Sprintf("sum %.6g", sum), "the shares of the offered load must sum to 1")
	}
}

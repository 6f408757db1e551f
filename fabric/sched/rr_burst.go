package sched

// NewRRBurst builds "rr_burst", the round robin of seed 000 section 3.1 as
// the paper built it: "this scheduler can be implemented using the SBT
// scheduler, equally distributing all the bandwidth among all the SLs"
// (Table 1; MODEL.md section 4.2). It is sbt (Algorithm 1, literally) with
// every SL's weight set to RRBurstWeight(len(cfg.SLs)), whatever
// cfg.SLs[].SBTWeight says. Each backlogged SL gets 1/NumSLs of the packets,
// in bursts of that many packets from one VL (Algorithm 1 restarts its walk
// at last_vl_selec), where rr alternates SLs packet by packet.
func NewRRBurst(cfg Config) (Scheduler, error) {
	if err := checkSLCount("rr_burst", cfg); err != nil {
		return nil, err
	}
	c := cfg
	c.SLs = append([]SL(nil), cfg.SLs...)
	w := RRBurstWeight(len(c.SLs))
	for i := range c.SLs {
		c.SLs[i].SBTWeight = w
	}
	return NewSBT(c)
}

// RRBurstWeight is rr_burst's weight per SL for n SLs: 100/n rounded down,
// so that the weights sum to 100 when n divides 100 (20 each for 5 SLs) and
// to a little less otherwise (33 each for 3 SLs, 99 in all; 14 each for 7,
// 98). The weights stay equal, so the shares stay exactly equal; only the
// burst length is rounded. n is at most 64 here, so the weight is at least 1.
func RRBurstWeight(n int) int { return max(100/max(n, 1), 1) }

package fabric

// CreditLoop is how many cycles a packet of SL sl holds its space in a
// switch's input buffer: from its header leaving the upstream port until
// its credits are back there. The header's flight (FLY), storing (SB_in),
// routing (RT) and arbitration (AT) in the input buffer, the packet
// leaving it over the MPort crossbar (⌈P/mport_speedup⌉ cycles for a
// packet of P flits, SL sl's MTU; its space is released the cycle after
// its tail leaves, docs/model.md), and the credits' flight back (FLY):
// 8+50+32+16+6+8 = 120 cycles with the defaults.
func (c *Config) CreditLoop(sl int) int64 {
	l := &c.Switch.Latency
	p, s := int64(c.MTUFlits(sl)), int64(max(c.Switch.MPortSpeedup, 1))
	return 2*l.Fly + l.SBIn + l.RT + l.AT + (p+s-1)/s
}

// VLRate is the most flits a cycle one VL carries over a link into a
// switch, in packets of SL sl's MTU: the whole packets the VL's space
// holds (max_vl_flits, at most the input buffer, counted in credits)
// over CreditLoop, and at most 1, the link's rate. However many streams
// share the VL: 48 flits over 120 cycles, 0.4, with the defaults. The
// cross-validation runs check it term by term (docs/flow.md).
func (c *Config) VLRate(sl int) float64 {
	fpc := max(c.Switch.FlitsPerCredit, 1)
	space := min(c.Switch.MaxVLFlits, c.Switch.InputBufferFlits) / fpc
	p := c.MTUFlits(sl)
	packets := space / max((p+fpc-1)/fpc, 1)
	return min(1, float64(packets*p)/float64(c.CreditLoop(sl)))
}

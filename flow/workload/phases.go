package workload

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/static"
)

// Phased turns pattern p into a causality-enhanced benchmark for the
// dynamic engine (seed 001 section 3.3.2): its flows, in source order,
// cut into phases of phaseFlows flows (the last may be smaller), every
// flow of size size; a phase starts when every flow of the previous one
// has completed, plus delay. The smaller the phases, the more tightly
// coupled the application.
//
// Between two phases stands a barrier: a flow of size 0 from server 0 to
// itself (it uses no link and completes when it starts) that depends on
// every flow of the phase before; the next phase's flows depend on it
// alone. So the dependencies number about twice the flows, not the
// square of a phase. The flows of phase k are at indices after the k-th
// barrier; Barriers lists the barriers' indices.
func Phased(p static.Pattern, phaseFlows int, size, delay float64) (flows []dynamic.Flow, barriers []int, err error) {
	if phaseFlows < 1 {
		return nil, nil, fmt.Errorf("phase flows: %d is not allowed: must be at least 1", phaseFlows)
	}
	if !(size >= 0) || math.IsInf(size, 0) {
		return nil, nil, fmt.Errorf("flow size: %v is not allowed: must be at least 0 and finite", size)
	}
	if !(delay >= 0) || math.IsInf(delay, 0) {
		return nil, nil, fmt.Errorf("phase delay: %v is not allowed: must be at least 0 and finite", delay)
	}
	barrier := -1
	inPhase := 0
	var phase []int
	p.Flows(0, int32(p.Servers()), func(src, dst int32) {
		if inPhase == phaseFlows {
			deps := append([]int(nil), phase...)
			flows = append(flows, dynamic.Flow{Src: 0, Dst: 0, Deps: deps})
			barrier = len(flows) - 1
			barriers = append(barriers, barrier)
			phase, inPhase = phase[:0], 0
		}
		f := dynamic.Flow{Src: src, Dst: dst, Size: size}
		if barrier >= 0 {
			f.Deps, f.Delay = []int{barrier}, delay
		}
		phase = append(phase, len(flows))
		flows = append(flows, f)
		inPhase++
	})
	return flows, barriers, nil
}

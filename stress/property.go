package stress

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/opasim/opasim/sim"
)

// The properties a search can attack.
const (
	// PropShare: every SL that offers at least its target share of what the
	// network delivers gets it, within Tolerance points. The violation is
	// the largest shortfall past the tolerance, in points.
	PropShare = "share"
	// PropP99: SL's p99 message latency stays under Bound cycles while SL
	// offers no more than its target share of what the network delivers
	// (an SL offering more is not owed a bound: its queue grows whatever
	// the scheduler).
	// The violation is p99 − Bound; for a run where SL offers more than its
	// share it is below −Bound, the further the more it offers.
	PropP99 = "p99"
	// PropStarvation: no message of SL waits longer than Bound cycles from
	// its generation to its delivery (the SL's largest latency; an SL
	// starved for N cycles holds a message at least that long), under the
	// same condition on SL's load. The violation is the largest latency −
	// Bound.
	PropStarvation = "starvation"
)

// Properties lists the property names.
func Properties() []string { return []string{PropP99, PropShare, PropStarvation} }

// Property is what a search tries to break. A violation above 0 breaks it.
type Property struct {
	Kind      string
	SL        int       // p99 and starvation: the SL (index of qos.sls)
	Bound     float64   // p99 and starvation: cycles
	Tolerance float64   // share: points
	Targets   []float64 // per SL, summing to 1: share's targets, and the loads p99 and starvation hold under
}

// Check reports a property that cannot be searched for, naming the flag
// behind each field.
func (p *Property) Check(sls int) error {
	// Written so that NaN fails every comparison and is refused.
	if !(p.Tolerance >= 0 && p.Tolerance <= 100) {
		return fmt.Errorf("--tolerance: %g is not allowed: must be in [0, 100] points", p.Tolerance)
	}
	switch p.Kind {
	case PropShare:
	case PropP99, PropStarvation:
		if p.SL < 0 || p.SL >= sls {
			return fmt.Errorf("--sl: %d is not allowed: must be an SL in [0, %d)", p.SL, sls)
		}
		if !(p.Bound >= 1) {
			return fmt.Errorf("--bound: %g is not allowed: must be at least 1 cycle", p.Bound)
		}
		if p.Bound > math.MaxInt64 {
			return fmt.Errorf("--bound: %g is not allowed: must be in [1, %d] cycles", p.Bound, int64(math.MaxInt64))
		}
	default:
		return fmt.Errorf("--property: %q is not allowed: must be one of: %s", p.Kind, strings.Join(Properties(), ", "))
	}
	if len(p.Targets) != sls {
		return fmt.Errorf("--targets: %d shares given, the config has %d SLs", len(p.Targets), sls)
	}
	return nil
}

// Violation measures how far run r breaks p (above 0: broken), and says
// where.
func (p *Property) Violation(r *sim.Results) (float64, string) {
	switch p.Kind {
	case PropShare:
		worst, at := -p.Tolerance, ""
		var delivered float64
		for _, s := range r.PerSL {
			delivered += s.AcceptedThroughput
		}
		for i, s := range r.PerSL {
			if s.OfferedLoad < p.Targets[i]*delivered {
				continue // it asks for less than its share: it is not owed it
			}
			short := 100 * (p.Targets[i] - s.NormalizedThroughput)
			if v := short - p.Tolerance; v > worst || at == "" {
				worst = v
				at = fmt.Sprintf("%s got %.2f%% of the delivered flits, target %.2f%% (offered %.4f of %.4f delivered flits/cycle/NIC)",
					s.SL, 100*s.NormalizedThroughput, 100*p.Targets[i], s.OfferedLoad, delivered)
			}
		}
		if at == "" {
			return -p.Tolerance, "no SL offered its share"
		}
		return worst, at
	}
	s := r.PerSL[p.SL]
	owed := p.Targets[p.SL] * r.AcceptedThroughput
	if over := s.OfferedLoad - owed; over > 1e-9 {
		return -p.Bound - 1000*over, fmt.Sprintf("%s offered %.4f flits/cycle/NIC, above its share of the %.4f delivered: not owed the bound",
			s.SL, s.OfferedLoad, r.AcceptedThroughput)
	}
	if p.Kind == PropP99 {
		return float64(s.Latency.P99Cycles) - p.Bound, fmt.Sprintf("%s p99 %d cycles, bound %g (offered %.4f, its share of the delivered %.4f)",
			s.SL, s.Latency.P99Cycles, p.Bound, s.OfferedLoad, owed)
	}
	return float64(s.Latency.MaxCycles) - p.Bound, fmt.Sprintf("%s waited up to %d cycles, bound %g (offered %.4f, its share of the delivered %.4f)",
		s.SL, s.Latency.MaxCycles, p.Bound, s.OfferedLoad, owed)
}

// ParseTargets reads --targets, "NAME=PERCENT,..." for every SL of names,
// into shares summing to 1.
func ParseTargets(s string, names []string) ([]float64, error) {
	t := make([]float64, len(names))
	seen := make([]bool, len(names))
	sum := 0.0
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		i := slices.Index(names, k)
		var x float64
		if _, err := fmt.Sscanf(v, "%g", &x); !ok || err != nil || !(x >= 0 && x <= math.MaxFloat64) {
			return nil, fmt.Errorf("--targets: %q is not allowed: must be NAME=PERCENT, PERCENT a finite number at least 0", kv)
		}
		if i < 0 {
			return nil, fmt.Errorf("--targets: %q is not allowed: must name an SL of qos.sls: %s", k, strings.Join(names, ", "))
		}
		t[i], seen[i] = x, true
		sum += x
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("--targets: %s has no share: give every SL of qos.sls (%s)", names[i], strings.Join(names, ", "))
		}
	}
	if sum <= 0 {
		return nil, fmt.Errorf("--targets: the shares sum to 0")
	}
	for i := range t {
		t[i] /= sum
	}
	return t, nil
}

// Package stress searches the traffic space for the worst case of a
// property of the output schedulers (docs/stress.md): given a network and
// a scheduler configuration, which offered traffic makes an SL fall
// furthest below its share, or its p99 latency rise furthest above a
// bound, or a message of it wait longest. A candidate is a point of the
// unit cube mapped to a whole run config (Space.Config); Search evaluates
// candidates with a random search and then CMA-ES (gonum's CmaEsChol),
// in parallel runs whose results do not depend on how many run at once.
//
// Imports: fabric, fabric/dtable, fabric/sched, sim, workloads and gonum.
package stress

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/workloads"
)

// Space maps points of the unit cube to run configs: Base with its
// traffic changed. The coordinates, for N SLs:
//
//	0          offered load, MinLoad to 1 flits/cycle/NIC
//	1..N       each SL's weight in the load (shares are the weights over their sum)
//	N+1..2N    each SL's message size, 1 flit to its MTU
//	2N+1       the destination pattern, one of Patterns
//	2N+2       the process: bernoulli (below 1/2) or cbr
//	2N+3       hot_spot only: the share sent to the hot NIC, 5 to 95 percent
//
// The traffic model has no burst lengths or on/off phases, so the space
// has none; Bernoulli arrivals are the burstiest it offers.
type Space struct {
	Base     fabric.Config
	Patterns []string // the destination patterns searched (those Base's topology accepts)
	MinLoad  float64
}

// NewSpace builds the space around base: every pattern base's topology
// accepts (each is tried with Validate), loads from minLoad to 1. The SLs'
// shares of the load are searched, but a DTable scheduler derives its
// table from them: so the table base's shares give is written to
// dir/dtable.yaml once, and every candidate reads it (qos.dtable_file).
func NewSpace(base fabric.Config, minLoad float64, dir string) (*Space, error) {
	if sched.Default().NeedsTable(base.QoS.Scheduler) && base.QoS.DTableFile == "" {
		res, err := dtable.Configure(base.DTableRequest())
		if err != nil {
			return nil, fmt.Errorf("qos.dtable: %w", err)
		}
		var b bytes.Buffer
		if err := res.WriteTable(&b); err != nil {
			return nil, err
		}
		path, err := filepath.Abs(filepath.Join(dir, "dtable.yaml"))
		if err == nil {
			err = os.WriteFile(path, b.Bytes(), 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("writing the DTable table the candidates share: %w", err)
		}
		base.QoS.DTableFile = path
	}
	s := &Space{Base: base, MinLoad: minLoad}
	for _, p := range workloads.PatternNames() {
		c := base
		c.Traffic.Pattern = p
		if err := c.Validate(sched.Default()); err == nil || !strings.Contains(err.Error(), "traffic.pattern") {
			s.Patterns = append(s.Patterns, p)
		}
	}
	if len(s.Patterns) == 0 {
		return nil, fmt.Errorf("no destination pattern is valid on this topology")
	}
	return s, nil
}

// Dims is the number of coordinates.
func (s *Space) Dims() int { return 2*len(s.Base.QoS.SLs) + 4 }

// Config returns the run config of point u (coordinates outside [0, 1]
// are clamped) with seed seed.
func (s *Space) Config(u []float64, seed uint64) fabric.Config {
	c := s.Base
	n := len(c.QoS.SLs)
	at := func(i int) float64 { return math.Max(0, math.Min(1, u[i])) }
	c.Seed = seed
	c.Traffic.Load = round3(s.MinLoad + (1-s.MinLoad)*at(0))
	c.QoS.SLs = append([]fabric.SLConfig(nil), c.QoS.SLs...)
	sum := 0.0
	for i := range n {
		sum += 0.02 + at(1+i)
	}
	left := 1.0
	for i := range n {
		share := round3((0.02 + at(1+i)) / sum)
		if i == n-1 {
			share = left // the shares sum to 1
		}
		left -= share
		c.QoS.SLs[i].Share = share
		mtu := c.MTUFlits(i)
		flits := 1 + int(math.Floor(at(1+n+i)*float64(mtu-1)+0.5))
		c.QoS.SLs[i].MessageBytes = flits * c.Switch.BytesPerFlit
	}
	c.Traffic.Pattern = s.Patterns[min(len(s.Patterns)-1, int(at(2*n+1)*float64(len(s.Patterns))))]
	c.Traffic.Process = "bernoulli"
	if at(2*n+2) >= 0.5 {
		c.Traffic.Process = "cbr"
	}
	if c.Traffic.Pattern == "hot_spot" {
		c.Traffic.HotSpotPercent = 5 + int(math.Floor(at(2*n+3)*90+0.5))
	}
	return c
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Describe says what point u's traffic is, for a report.
func (s *Space) Describe(c fabric.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "load %.3f, %s, %s", c.Traffic.Load, c.Traffic.Pattern, c.Traffic.Process)
	if c.Traffic.Pattern == "hot_spot" {
		fmt.Fprintf(&b, " (%d%% to NIC %d)", c.Traffic.HotSpotPercent, c.Traffic.HotSpot)
	}
	fmt.Fprintf(&b, ", seed %d; per SL share/message flits:", c.Seed)
	for i, sl := range c.QoS.SLs {
		fmt.Fprintf(&b, " %s %.3f/%d", sl.Name, sl.Share, sl.MessageBytes/c.Switch.BytesPerFlit)
		if i < len(c.QoS.SLs)-1 {
			b.WriteString(",")
		}
	}
	return b.String()
}

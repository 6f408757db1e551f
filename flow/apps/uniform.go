package apps

import (
	"fmt"
	"math"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/route"
)

// UniformConfig describes closed-loop uniform random traffic.
type UniformConfig struct {
	PerServer int // flows each server keeps running (>= 1)
	// Completions stops the run after this many flows have completed (0:
	// after MaxFlows flows have been added and have completed).
	Completions int64
	MaxFlows    int64   // flows to add in all (0: no limit; then Completions must be set)
	MinSize     float64 // sizes are uniform in [MinSize, MaxSize]
	MaxSize     float64
	Seed        uint64
}

// Uniform is a dynamic.Workload: at time 0 every server starts PerServer
// flows, each to a server drawn uniformly from the others, and whenever
// one of its flows completes it starts another, so PerServer × servers
// flows run at all times until the budget runs out. Sizes are uniform in
// [MinSize, MaxSize]. One SplitMix64 stream, seeded with Seed, draws each
// flow's destination then its size, in the order the flows are added,
// which the engine fixes: runs are deterministic. A flow is tagged with
// its source server.
type Uniform struct {
	cfg     UniformConfig
	servers int32
	x       uint64
	added   int64
	done    int64
}

// NewUniform returns the workload for a network of servers servers.
func NewUniform(servers int, cfg UniformConfig) (*Uniform, error) {
	switch {
	case servers < 2:
		return nil, fmt.Errorf("uniform servers: %d is not allowed: must be at least 2", servers)
	case cfg.PerServer < 1:
		return nil, fmt.Errorf("uniform per server: %d is not allowed: must be at least 1", cfg.PerServer)
	case cfg.Completions < 0 || cfg.MaxFlows < 0 || cfg.Completions == 0 && cfg.MaxFlows == 0:
		return nil, fmt.Errorf("uniform completions, max flows: %d, %d is not allowed: must be >= 0, not both 0", cfg.Completions, cfg.MaxFlows)
	case !(cfg.MinSize >= 0) || !(cfg.MaxSize >= cfg.MinSize) || math.IsInf(cfg.MaxSize, 0):
		return nil, fmt.Errorf("uniform sizes: [%v, %v] is not allowed: must be finite, 0 <= min <= max", cfg.MinSize, cfg.MaxSize)
	}
	return &Uniform{cfg: cfg, servers: int32(servers), x: cfg.Seed}, nil
}

// Added returns the number of flows added so far.
func (w *Uniform) Added() int64 { return w.added }

// Init starts PerServer flows from every server.
func (w *Uniform) Init(e *dynamic.Engine) error {
	for range w.cfg.PerServer {
		for s := range w.servers {
			if err := w.add(e, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// FlowDone replaces the completed flow with a new one from its source.
func (w *Uniform) FlowDone(e *dynamic.Engine, d dynamic.Done) error {
	w.done++
	if w.cfg.Completions > 0 && w.done >= w.cfg.Completions {
		e.Stop()
		return nil
	}
	return w.add(e, int32(d.Tag))
}

// Wake is not used.
func (w *Uniform) Wake(*dynamic.Engine) error { return nil }

func (w *Uniform) add(e *dynamic.Engine, src int32) error {
	if w.cfg.MaxFlows > 0 && w.added >= w.cfg.MaxFlows {
		return nil
	}
	w.added++
	dst := int32(w.next() % uint64(w.servers-1))
	if dst >= src {
		dst++
	}
	size := w.cfg.MinSize + (w.cfg.MaxSize-w.cfg.MinSize)*float64(w.next()>>11)/(1<<53)
	_, err := e.Add(dynamic.Flow{Src: src, Dst: dst, Size: size, Tag: int64(src)}, nil)
	return err
}

// next is SplitMix64.
func (w *Uniform) next() uint64 {
	w.x += 0x9e3779b97f4a7c15
	z := w.x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// RunUniform runs cfg's traffic on r's network.
func RunUniform(r route.Router, cfg UniformConfig, opt dynamic.Options) (dynamic.Stats, error) {
	w, err := NewUniform(r.Graph().NumServers(), cfg)
	if err != nil {
		return dynamic.Stats{}, err
	}
	e, err := dynamic.New(r, opt)
	if err != nil {
		return dynamic.Stats{}, err
	}
	return e.Run(w)
}

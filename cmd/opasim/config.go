package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/sim"
)

// runFlags are the flags that override the config file.
type runFlags struct {
	config, pattern, engine, out, scheduler  string
	cpuProfile, memProfile, execTrace        string
	preset, traffic, hardware, schedulerView string
	trace                                    string
	traceSL                                  int
	preempt                                  []string
	preemptMin                               int
	ports                                    int
	load                                     float64
	cycles, warmup, window                   int64
	seed                                     uint64
	observe                                  observeFlags
	dist                                     distFlags
}

// register binds every flag of `run`: the shared config flags, the point
// a sweep varies (--load, --seed, --scheduler), and where results and
// profiles go.
func (f *runFlags) register(fs *pflag.FlagSet) {
	f.registerConfig(fs)
	fs.Float64Var(&f.load, "load", 0, "offered load in flits/cycle/NIC, in (0, 1] (default 0.5)")
	fs.Uint64Var(&f.seed, "seed", 0, "master random seed (default 1)")
	fs.StringVar(&f.scheduler, "scheduler", "", "output scheduler (default rr)")
	fs.StringVar(&f.out, "out", "", "write the results JSON here")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the run here")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a pprof heap profile at the end of the run here")
	fs.StringVar(&f.execTrace, "exectrace", "", "write a Go execution trace (runtime/trace, for go tool trace) of the run here")
	f.observe.register(fs)
	f.dist.registerRun(fs)
}

// registerConfig binds the flags that build a config the same way in
// `run` and `sweep`: one name, help text and default each.
func (f *runFlags) registerConfig(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "YAML config file (unknown keys are errors); flags override it")
	fs.StringVar(&f.preset, "preset", "", "topology preset: "+strings.Join(topo.PresetNames(), ", "))
	fs.StringVar(&f.traffic, "traffic", "", "traffic scenario applied before the config file: "+strings.Join(fabric.TrafficPresets(), ", "))
	fs.StringVar(&f.hardware, "hardware", "", "buffer configuration applied before --traffic and the config file: "+strings.Join(fabric.HardwarePresets(), ", ")+
		" (default: seed000's buffers; seed002: the single switch's 256-flit buffers, for its experiments)")
	fs.IntVar(&f.ports, "ports", 0, "switch ports, one NIC each (multiple of 4, >= 8; default 48)")
	fs.StringVar(&f.pattern, "pattern", "", "destination pattern (uniform, neighbour, bit_reversal, bit_complement, transpose, shuffle, hot_spot)")
	fs.Int64Var(&f.cycles, "cycles", 0, "cycles to simulate, warm-up included (default 20000)")
	fs.Int64Var(&f.warmup, "warmup", 0, "warm-up cycles not measured (default 5000)")
	fs.StringVar(&f.engine, "engine", "", "actors or sequential (default: run uses the config file's, else actors; "+
		"sweep runs every point on sequential unless this flag is given)")
	fs.StringVar(&f.schedulerView, "scheduler-view", "", "what the schedulers see: eligible, table or table_feedback (default eligible)")
	fs.Int64Var(&f.window, "window", 0, "cycles per clock window (default: the largest allowed)")
	fs.StringVar(&f.trace, "trace", "", "replay this VEF trace (plain or gzip) beside the synthetic traffic; "+
		"without --cycles and --warmup the run is bounded only by the trace's end, all of it measured")
	fs.IntVar(&f.traceSL, "trace-sl", 0, "the SL (index of qos.sls) of the trace's messages (default 0)")
	fs.StringArrayVar(&f.preempt, "preempt", nil, "packet preemption: SL:SL,SL... lets the first SL interrupt the others' packets on every link "+
		"(repeat for more SLs; replaces qos.preemption.preempts), e.g. --preempt VO:VI,CL,BE,BK")
	fs.IntVar(&f.preemptMin, "preempt-min-flits", 0, "flits a packet sends before it may be interrupted (default 16 with --preempt)")
}

// TraceCycles bounds a --trace run given no --cycles: far beyond any
// trace's end, which ends the run.
const TraceCycles = 1 << 50

// load builds the effective config: defaults, then the file, then flags.
func (f *runFlags) effective(fs *pflag.FlagSet) (fabric.Config, error) {
	cfg := fabric.Default()
	if fs.Changed("hardware") {
		if err := fabric.ApplyHardwarePreset(&cfg, f.hardware); err != nil {
			return cfg, fmt.Errorf("--%w", err)
		}
	}
	if fs.Changed("traffic") {
		if err := fabric.ApplyTrafficPreset(&cfg, f.traffic); err != nil {
			return cfg, fmt.Errorf("--%w", err)
		}
	}
	if fs.Changed("config") {
		if err := sim.LoadConfig(f.config, &cfg); err != nil {
			return cfg, fmt.Errorf("--config: %w", err)
		}
	}
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	set("preset", func() { cfg.Topology.Preset = f.preset })
	set("ports", func() { cfg.Topology.Ports = f.ports })
	set("pattern", func() { cfg.Traffic.Pattern = f.pattern })
	set("load", func() { cfg.Traffic.Load = f.load })
	set("cycles", func() { cfg.Cycles = f.cycles })
	set("warmup", func() { cfg.Warmup = f.warmup })
	set("seed", func() { cfg.Seed = f.seed })
	set("engine", func() { cfg.Engine = f.engine })
	set("scheduler", func() { cfg.QoS.Scheduler = f.scheduler })
	set("scheduler-view", func() { cfg.QoS.SchedulerView = f.schedulerView })
	set("window", func() { cfg.Window = f.window })
	set("trace", func() {
		cfg.Trace.File = f.trace
		if !fs.Changed("cycles") {
			cfg.Cycles = TraceCycles
		}
		if !fs.Changed("warmup") {
			cfg.Warmup = 0
		}
	})
	set("trace-sl", func() { cfg.Trace.SL = f.traceSL })
	if fs.Changed("preempt") {
		m, err := parsePreempt(f.preempt)
		if err != nil {
			return cfg, err
		}
		cfg.QoS.Preemption.Preempts = m
		if cfg.QoS.Preemption.MinFlits == 0 {
			cfg.QoS.Preemption.MinFlits = DefaultPreemptMinFlits
		}
	}
	set("preempt-min-flits", func() { cfg.QoS.Preemption.MinFlits = f.preemptMin })
	return cfg, f.contradictions(fs, &cfg)
}

// DefaultPreemptMinFlits is qos.preemption.min_flits with --preempt and
// no other value given: one LTP's worth of flits.
const DefaultPreemptMinFlits = 16

// parsePreempt reads --preempt values, each "SL:SL,SL...", into
// qos.preemption.preempts (the names are checked with the config).
func parsePreempt(vals []string) (map[string][]string, error) {
	m := map[string][]string{}
	for _, v := range vals {
		a, bs, ok := strings.Cut(v, ":")
		a = strings.TrimSpace(a)
		if !ok || a == "" || strings.TrimSpace(bs) == "" {
			return nil, fmt.Errorf("--preempt %q: must be SL:SL[,SL...], the SL that interrupts, then those it may interrupt (e.g. VO:BE,BK)", v)
		}
		if _, dup := m[a]; dup {
			return nil, fmt.Errorf("--preempt %q: %s is given twice; list every SL it may interrupt in one --preempt", v, a)
		}
		for _, b := range strings.Split(bs, ",") {
			if b = strings.TrimSpace(b); b == "" {
				return nil, fmt.Errorf("--preempt %q: an empty SL name after %q", v, a+":")
			}
			m[a] = append(m[a], b)
		}
	}
	return m, nil
}

// contradictions refuses flags that the rest of the config would silently
// override.
func (f *runFlags) contradictions(fs *pflag.FlagSet, cfg *fabric.Config) error {
	if !fs.Changed("ports") {
		return nil
	}
	if t := cfg.Topology; t.Preset != "" {
		return fmt.Errorf("--ports %d: the preset %q has its own shape (see opasim topo %s); give one or the other", f.ports, t.Preset, t.Preset)
	} else if t.Kind != "single_switch" {
		return fmt.Errorf("--ports %d: only a single_switch topology has a port count; this config's topology.kind is %s", f.ports, t.Kind)
	}
	return nil
}

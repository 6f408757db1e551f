package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/topo"
	"github.com/opasim/opasim/workloads"
)

// topoFlags are the flags of `opasim topo`.
type topoFlags struct {
	pattern, ties, trunks string
	hot, hotPercent       int
	all                   bool
}

func newTopoCmd() *cobra.Command {
	var o topoFlags
	cmd := &cobra.Command{
		Use:   "topo PRESET [--channel-load [PATTERN]]",
		Short: "Print a topology preset's structure, and with --channel-load its channel loads and saturation bound",
		Long: "Presets: " + strings.Join(topo.PresetNames(), ", ") + "\n\n" +
			"--channel-load routes every (source, destination) pair of a traffic pattern (uniform: every ordered pair\n" +
			"of distinct NICs, weight 1/(n-1) each; hot_spot: its exact mix; the deterministic patterns: each NIC's\n" +
			"one destination) and prints the load of the links per flit/cycle/NIC injected, the most loaded link and\n" +
			"the saturation bound 1 / max load. Patterns: " + strings.Join(workloads.PatternNames(), ", "),
		Example: "  opasim topo torus2d-8x8 --channel-load\n" +
			"  opasim topo torus2d-8x8 --channel-load --dor-ties plus --trunk-select dst_mod   # the first implementation\n" +
			"  opasim topo torus3d-8x8x4 --channel-load transpose",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || len(args) > 2 {
				return fmt.Errorf("topo takes a preset name (one of: %s) and, with --channel-load, a pattern; got %d arguments",
					strings.Join(topo.PresetNames(), ", "), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.pattern, "channel-load", "uniform", "print the channel loads under this traffic `pattern` (alone: uniform)")
	f.Lookup("channel-load").NoOptDefVal = "uniform"
	f.StringVar(&o.ties, "dor-ties", "", "dor: direction of a packet exactly half way round a ring: "+strings.Join(topo.TieRules(), ", ")+" (default balanced)")
	f.StringVar(&o.trunks, "trunk-select", "", "dor: trunk member carrying a packet: "+strings.Join(topo.TrunkSelects(), ", ")+" (default src_dst)")
	f.IntVar(&o.hot, "hot-spot", 0, "hot_spot pattern: the hot NIC")
	f.IntVar(&o.hotPercent, "hot-spot-percent", 10, "hot_spot pattern: the share of messages sent to it, in percent")
	f.BoolVar(&o.all, "all", false, "with --channel-load: print the load of every link")
	return cmd
}

// run prints the preset's structure and, with --channel-load, its loads.
func (o *topoFlags) run(cmd *cobra.Command, args []string) error {
	loads := cmd.Flags().Changed("channel-load")
	if len(args) == 2 {
		if !loads || o.pattern != "uniform" {
			return badInput(fmt.Errorf("%q: a second argument is a pattern, given only with --channel-load", args[1]))
		}
		o.pattern = args[1]
	}
	t, spec, err := topo.Preset(args[0])
	if err != nil {
		return badInput(err)
	}
	if o.ties != "" && !slices.Contains(topo.TieRules(), o.ties) {
		return badInput(fmt.Errorf("--dor-ties: %q is not allowed: must be one of: %s", o.ties, strings.Join(topo.TieRules(), ", ")))
	}
	if o.trunks != "" && !slices.Contains(topo.TrunkSelects(), o.trunks) {
		return badInput(fmt.Errorf("--trunk-select: %q is not allowed: must be one of: %s", o.trunks, strings.Join(topo.TrunkSelects(), ", ")))
	}
	spec.Options = topo.RoutingOptions{Ties: o.ties, TrunkSelect: o.trunks}
	out := cmd.OutOrStdout()
	fmt.Fprint(out, t.Summary().String())
	fmt.Fprintf(out, "routing: %s\nsource: %s\n", routingName(spec), spec.Source)
	if !loads {
		return nil
	}
	demand, what, err := demandOf(o.pattern, t.NumNICs(), o.hot, o.hotPercent)
	if err != nil {
		return badInput(err)
	}
	def := fabric.Default() // the loads do not depend on the SC tables: every SC takes the same path
	r, err := topo.DefaultRegistry().NewWith(spec.Routing, t, def.SCTables(), spec.Options)
	if err != nil {
		return err
	}
	l, err := topo.ChannelLoads(t, r, demand, 0)
	if err != nil {
		return err
	}
	printLoads(out, l, what, o.all)
	return nil
}

// routingName is the routing and, for dor, its tie and trunk rules.
func routingName(spec topo.Spec) string {
	if spec.Routing != "dor" {
		return spec.Routing
	}
	ties, trunks := spec.Options.Ties, spec.Options.TrunkSelect
	if ties == "" {
		ties = topo.TieRules()[0]
	}
	if trunks == "" {
		trunks = topo.TrunkSelects()[0]
	}
	return fmt.Sprintf("dor (ties %s, trunk members %s)", ties, trunks)
}

// demandOf is the traffic matrix of a pattern on n NICs, and its
// description: uniform and hot_spot exactly, any other pattern when it is
// deterministic (the same destination whatever the generator).
func demandOf(pattern string, n, hot, hotPercent int) (topo.Demand, string, error) {
	switch pattern {
	case "uniform":
		return topo.UniformDemand(n), fmt.Sprintf("uniform traffic (every ordered pair of the %d NICs, 1/%d each)", n, n-1), nil
	case "hot_spot":
		if hot < 0 || hot >= n {
			return nil, "", fmt.Errorf("--hot-spot: %d is not allowed: must be a NIC in [0, %d)", hot, n)
		}
		if hotPercent < 0 || hotPercent > 100 {
			return nil, "", fmt.Errorf("--hot-spot-percent: %d is not allowed: must be in [0, 100]", hotPercent)
		}
		// A source other than the hot NIC sends hotPercent % to it and
		// the rest uniformly to the n-1 others (the hot NIC included).
		total := 100 * (n - 1)
		return func(src int, yield func(dst, weight, total int)) {
			for dst := range n {
				switch {
				case dst == src:
				case src == hot:
					yield(dst, 100, total)
				case dst == hot:
					yield(dst, hotPercent*(n-1)+100-hotPercent, total)
				default:
					yield(dst, 100-hotPercent, total)
				}
			}
		}, fmt.Sprintf("hot_spot traffic (%d%% to NIC %d, the rest uniform)", hotPercent, hot), nil
	}
	p, err := workloads.NewPattern(pattern, workloads.Options{HotSpot: hot, HotSpotPercent: hotPercent})
	if err != nil {
		return nil, "", fmt.Errorf("--channel-load: %q is not allowed: must be one of: %s", pattern, strings.Join(workloads.PatternNames(), ", "))
	}
	a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(3, 4))
	dst := make([]int, n)
	for src := range n {
		dst[src] = p(src, n, a)
		if again := p(src, n, b); again != dst[src] {
			return nil, "", fmt.Errorf("--channel-load: %q is random (NIC %d sends to %d or %d): only uniform, hot_spot and deterministic patterns have exact loads", pattern, src, dst[src], again)
		}
	}
	return topo.PermutationDemand(dst), pattern + " traffic (each NIC to its one destination)", nil
}

func printLoads(w io.Writer, l *topo.ChannelLoad, what string, all bool) {
	t := l.Topology
	st := l.Stats()
	fmt.Fprintf(w, "\nchannel load, %s, per flit/cycle/NIC injected (%d routes):\n", what, l.Routes)
	if st.SwitchLinks > 0 {
		at := st.MaxSwitchAt
		to := t.Wiring[at.Switch][at.Port].Port.Switch
		fmt.Fprintf(w, "switch-switch links:  %d, max %.6f (switch %d port %d: %s, to switch %d), mean %.6f, min %.6f\n",
			st.SwitchLinks, st.MaxSwitch, at.Switch, at.Port, t.DescribePort(at.Switch, at.Port), to, st.MeanSwitch, st.MinSwitch)
	}
	for _, c := range l.TorusClasses() {
		fmt.Fprintf(w, "  %-14s      %d links, max %.6f, mean %.6f, min %.6f\n", c.Name+":", c.Links, c.Max, c.Mean, c.Min)
	}
	fmt.Fprintf(w, "NIC links:            injection max %.6f, ejection max %.6f (NIC %d)\n", st.MaxInjection, st.MaxEjection, st.MaxEjectionAt)
	which := "a switch-switch link"
	if st.Max > st.MaxSwitch {
		which = "a NIC link"
	}
	fmt.Fprintf(w, "saturation bound:     %.4f flits/cycle/NIC (1 / max load %.6f, on %s)\n", st.Bound, st.Max, which)
	if !all {
		return
	}
	fmt.Fprintf(w, "\n%-7s %-5s %-28s %-12s %s\n", "switch", "port", "link", "to", "load")
	for s := range l.Out {
		for p, v := range l.Out[s] {
			peer := t.Wiring[s][p]
			to := ""
			switch peer.Kind {
			case topo.PeerNone:
				continue
			case topo.PeerSwitch:
				to = fmt.Sprintf("switch %d", peer.Port.Switch)
			case topo.PeerNIC:
				to = fmt.Sprintf("NIC %d", peer.NIC)
			}
			fmt.Fprintf(w, "%-7d %-5d %-28s %-12s %.6f\n", s, p, t.DescribePort(s, p), to, v)
		}
	}
	for n, v := range l.In {
		fmt.Fprintf(w, "%-7s %-5s %-28s %-12s %.6f\n", "NIC", fmt.Sprint(n), "injection", fmt.Sprintf("switch %d", t.NICPort[n].Switch), v)
	}
}

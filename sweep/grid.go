package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/opasim/opasim/fabric"
	"github.com/opasim/opasim/fabric/sched"
)

// MaxPoints is the most runs a grid may hold (schedulers × loads × seeds).
// Each point keeps its own config in memory and its own results file on
// disk, so a larger grid is refused before anything is allocated.
const MaxPoints = 10_000

// Grid is the base config and the three axes varied around it.
type Grid struct {
	Base       fabric.Config
	Schedulers []string
	Loads      []float64
	Seeds      []uint64
	Topology   string // label for the summary and the plots
	Traffic    string // label for the summary and the plots
}

// Size is the number of runs of the grid.
func (g *Grid) Size() int { return len(g.Schedulers) * len(g.Loads) * len(g.Seeds) }

// CheckSize refuses a grid of more than MaxPoints runs.
func (g *Grid) CheckSize() error {
	if n := g.Size(); n > MaxPoints {
		return fmt.Errorf("%d runs (%d schedulers x %d loads x %d seeds) is not allowed: a sweep has at most %d runs",
			n, len(g.Schedulers), len(g.Loads), len(g.Seeds), MaxPoints)
	}
	return nil
}

// Point is one run of the grid.
type Point struct {
	Scheduler string
	Load      float64
	Seed      uint64
	Config    fabric.Config
	cfgJSON   []byte // canonical form, to recognise a stored run of this config
}

// File is the name of the point's results file in the runs directory.
func (p *Point) File() string {
	return fmt.Sprintf("%s_load%s_seed%d.json", p.Scheduler, FormatLoad(p.Load), p.Seed)
}

// Points lists the grid by scheduler, then load, then seed, each with its
// own copy of the config, and validates every (scheduler, load) config
// against the known schedulers.
func (g *Grid) Points(schedulers *sched.Registry) ([]Point, error) {
	if err := g.CheckSize(); err != nil {
		return nil, err
	}
	pts := make([]Point, 0, g.Size())
	for _, s := range g.Schedulers {
		for _, l := range g.Loads {
			for k, seed := range g.Seeds {
				cfg, _, err := cloneConfig(g.Base)
				if err != nil {
					return nil, err
				}
				cfg.QoS.Scheduler, cfg.Traffic.Load, cfg.Seed = s, l, seed
				if k == 0 {
					if err := cfg.Validate(schedulers); err != nil {
						return nil, pointProblem(len(pts) == 0, s, l, err)
					}
				}
				data, err := json.Marshal(cfg)
				if err != nil {
					return nil, err
				}
				pts = append(pts, Point{Scheduler: s, Load: l, Seed: seed, Config: cfg, cfgJSON: data})
			}
		}
	}
	return pts, nil
}

// pointProblem reports an invalid config; after the first point the base
// config is known to be good, so the scheduler and load are to blame.
func pointProblem(first bool, s string, l float64, err error) error {
	if first {
		return err
	}
	return fmt.Errorf("with scheduler %s at load %s:\n%w", s, FormatLoad(l), err)
}

// cloneConfig deep-copies cfg through its JSON form, which is also the form
// a results file stores it in.
func cloneConfig(cfg fabric.Config) (fabric.Config, []byte, error) {
	data, err := json.Marshal(cfg)
	if err != nil {
		return cfg, nil, err
	}
	var c fabric.Config
	err = json.Unmarshal(data, &c)
	return c, data, err
}

// ParseSchedulers reads a comma-separated list of known scheduler names,
// each at most once.
func ParseSchedulers(s string, known []string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case !slices.Contains(known, name):
			return nil, fmt.Errorf("%q is not allowed: must be one of: %s", name, strings.Join(known, ", "))
		case slices.Contains(out, name):
			return nil, fmt.Errorf("%q is listed twice", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// SeedRange is the seeds 1..n, for n in [1, MaxPoints].
func SeedRange(n int) ([]uint64, error) {
	if n < 1 || n > MaxPoints {
		return nil, fmt.Errorf("%d is not allowed: must be in [1, %d] (a sweep has at most %d runs)", n, MaxPoints, MaxPoints)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds, nil
}

// ParseSeedList reads comma-separated non-negative seeds, each at most
// once, at most MaxPoints of them.
func ParseSeedList(s string) ([]uint64, error) {
	if n := strings.Count(s, ",") + 1; n > MaxPoints {
		return nil, fmt.Errorf("%d seeds are not allowed: a sweep has at most %d runs", n, MaxPoints)
	}
	var seeds []uint64
	seen := map[uint64]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not allowed: must be non-negative integers separated by commas", f)
		}
		if seen[v] {
			return nil, fmt.Errorf("%d is listed twice", v)
		}
		seen[v] = true
		seeds = append(seeds, v)
	}
	return seeds, nil
}

// ParseLoads reads "0.1,0.5,1" or ranges "0.1:1:0.1" (both ends included),
// in ascending order. Each load is rounded to 1e-9 so that a range gives
// 0.3, not 0.30000000000000004. More than MaxPoints loads, counted before
// any range is expanded, are refused.
func ParseLoads(s string) ([]float64, error) {
	var loads []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		vals, err := loadValues(part, MaxPoints-len(loads))
		if err != nil {
			return nil, err
		}
		loads = append(loads, vals...)
	}
	slices.Sort(loads)
	for i, l := range loads {
		if !(l > 0 && l <= 1) {
			return nil, fmt.Errorf("%s is not allowed: must be in (0, 1] flits/cycle/NIC", FormatLoad(l))
		}
		if i > 0 && loads[i-1] == l {
			return nil, fmt.Errorf("%s is listed twice", FormatLoad(l))
		}
	}
	return loads, nil
}

// loadValues reads one load or one range of at most room loads.
func loadValues(part string, room int) ([]float64, error) {
	fields := strings.Split(part, ":")
	nums := make([]float64, 0, 3)
	for _, f := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		nums = append(nums, v)
	}
	switch {
	case len(nums) == 1 && room < 1:
		return nil, fmt.Errorf("more than %d loads are not allowed: a sweep has at most %d runs", MaxPoints, MaxPoints)
	case len(nums) == 1:
		return []float64{roundLoad(nums[0])}, nil
	case len(nums) == 3:
		return loadRange(part, nums[0], nums[1], nums[2], room)
	}
	return nil, fmt.Errorf("%q is not allowed: give a load or a range FROM:TO:STEP", part)
}

// loadRange expands FROM:TO:STEP after checking how many loads it holds.
func loadRange(part string, from, to, step float64, room int) ([]float64, error) {
	if !(step > 0) || to < from {
		return nil, fmt.Errorf("%q is not allowed: a range is FROM:TO:STEP with FROM <= TO and STEP > 0", part)
	}
	if n := math.Floor((to+1e-9-from)/step) + 1; !(n <= float64(room)) {
		return nil, fmt.Errorf("%q is not allowed: it holds %.0f loads, and a sweep has at most %d runs", part, n, MaxPoints)
	}
	var out []float64
	for i := 0; from+float64(i)*step <= to+1e-9; i++ {
		out = append(out, roundLoad(from+float64(i)*step))
	}
	return out, nil
}

func roundLoad(l float64) float64 { return math.Round(l*1e9) / 1e9 }

// FormatLoad writes a load the way file names and the CSV do: 0.3, 1.
func FormatLoad(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

// TopologyLabel names the topology of c for the summary and the plots.
func TopologyLabel(c fabric.Config) string {
	t := c.Topology
	switch {
	case t.Preset != "":
		return t.Preset
	case t.Kind == "torus":
		dims := make([]string, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = strconv.Itoa(d)
		}
		return "torus " + strings.Join(dims, "x")
	case t.Kind == "tree":
		return fmt.Sprintf("%d-ary %d-tree", t.K, t.N)
	}
	return fmt.Sprintf("single switch, %d ports", t.Ports)
}

// TrafficLabel names the traffic: the scenario preset if one was applied.
func TrafficLabel(c fabric.Config, preset string) string {
	if preset != "" {
		return preset
	}
	return c.Traffic.Pattern + " " + c.Traffic.Process
}

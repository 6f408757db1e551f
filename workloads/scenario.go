package workloads

import (
	"fmt"
	"sort"
	"strings"
)

// Scenario is a named traffic mix: the destination pattern, the generation
// process, and per SL the size of its messages and its share of the load.
// It says nothing of the hardware; a run that applies it (fabric's
// ApplyTrafficPreset) sets the buffers and tables that go with it.
type Scenario struct {
	Name    string
	Pattern string // a name of PatternNames
	Process string // "bernoulli" or "cbr"
	SLs     []ScenarioSL
}

// ScenarioSL is one SL's traffic in a scenario.
type ScenarioSL struct {
	Name         string  // the SL's name in the paper
	MessageBytes int     // every message of the SL has this size
	Share        float64 // of the offered load
}

// PaperMix is seed 000 section 4, Table 8: CBR flows of the SLs VO, VI,
// CL, BE and BK with messages of 128, 256, 512, 1024 and 1024 bytes
// carrying 10/30/50/5/5 % of the load, to uniform destinations.
func PaperMix() Scenario {
	return Scenario{Name: "paper-mix", Pattern: "uniform", Process: "cbr", SLs: []ScenarioSL{
		{Name: "VO", MessageBytes: 128, Share: 0.1},
		{Name: "VI", MessageBytes: 256, Share: 0.3},
		{Name: "CL", MessageBytes: 512, Share: 0.5},
		{Name: "BE", MessageBytes: 1024, Share: 0.05},
		{Name: "BK", MessageBytes: 1024, Share: 0.05},
	}}
}

var scenarios = map[string]func() Scenario{
	"paper-mix": PaperMix,
}

// ScenarioNames lists the known scenarios, sorted.
func ScenarioNames() []string {
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupScenario returns the scenario called name.
func LookupScenario(name string) (Scenario, error) {
	f, ok := scenarios[name]
	if !ok {
		return Scenario{}, fmt.Errorf("unknown traffic scenario %q (known: %s)", name, strings.Join(ScenarioNames(), ", "))
	}
	return f(), nil
}

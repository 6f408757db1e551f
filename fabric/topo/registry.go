package topo

import (
	"fmt"
	"sort"
	"strings"
)

// SCTables are the service-channel tables a router may need (seed 000
// section 2.1, Table 7): SL2SC[sl] lists the SCs of SL sl, SC2SL[sc] is the
// SL of SC sc.
type SCTables struct {
	SL2SC [][]int
	SC2SL []int
}

// RouterFactory builds a router for topology t.
type RouterFactory func(t *Topology, sc SCTables) (Router, error)

// Registry maps routing names to factories. Build it explicitly with
// NewRegistry or DefaultRegistry; registering a taken name is an error.
type Registry struct {
	factories map[string]RouterFactory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]RouterFactory{}} }

// DefaultRegistry returns a registry with every built-in routing: "direct"
// (single switch), "dor" (tori) and "updown" (k-ary n-trees). Adding a
// routing is one file and one line here.
func DefaultRegistry() *Registry {
	r := NewRegistry()
	must(r.Register("direct", func(t *Topology, _ SCTables) (Router, error) { return NewDirect(t) }))
	must(r.Register("dor", func(t *Topology, sc SCTables) (Router, error) {
		return NewDOR(t, t.Dims, sc.SL2SC, sc.SC2SL)
	}))
	must(r.Register("updown", func(t *Topology, _ SCTables) (Router, error) { return NewUpDown(t) }))
	return r
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// Register adds a factory under name.
func (r *Registry) Register(name string, f RouterFactory) error {
	if _, ok := r.factories[name]; ok {
		return fmt.Errorf("routing %q is already registered", name)
	}
	r.factories[name] = f
	return nil
}

// Names lists the registered names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Has reports whether name is registered.
func (r *Registry) Has(name string) bool { _, ok := r.factories[name]; return ok }

// New builds the routing called name for t.
func (r *Registry) New(name string, t *Topology, sc SCTables) (Router, error) {
	f, ok := r.factories[name]
	if !ok {
		return nil, fmt.Errorf("unknown routing %q (known: %s)", name, strings.Join(r.Names(), ", "))
	}
	return f(t, sc)
}

// NewDirect builds the routing of a single switch: NIC n's port. It needs
// NIC n on port n of switch 0, as SingleSwitch wires it.
func NewDirect(t *Topology) (Router, error) {
	if t.NumSwitches() != 1 {
		return nil, fmt.Errorf("routing direct: topology %s has %d switches, needs 1", t.Name, t.NumSwitches())
	}
	for n, at := range t.NICPort {
		if at != (PortRef{Switch: 0, Port: n}) {
			return nil, fmt.Errorf("routing direct: topology %s has NIC %d on %d.%d, needs 0.%d", t.Name, n, at.Switch, at.Port, n)
		}
	}
	return singleRouter{}, nil
}

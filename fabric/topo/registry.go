package topo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opasim/opasim/fabric/qos"
	"github.com/opasim/opasim/registry"
)

// RoutingOptions tune a routing; the zero value is every routing's
// default. Only dor reads them (Ties: TieRules(), TrunkSelect:
// TrunkSelects()); the other routings ignore them.
type RoutingOptions struct {
	Ties        string // dor: how a packet exactly half way round a ring chooses its direction; "" = balanced
	TrunkSelect string // dor: which member of a trunk carries a packet; "" = src_dst
}

// Validate reports the first unknown value, naming the option and the
// allowed values.
func (o RoutingOptions) Validate() error {
	if o.Ties != "" && !slices.Contains(TieRules(), o.Ties) {
		return fmt.Errorf("ties %q is unknown (known: %s)", o.Ties, strings.Join(TieRules(), ", "))
	}
	if o.TrunkSelect != "" && !slices.Contains(TrunkSelects(), o.TrunkSelect) {
		return fmt.Errorf("trunk selection %q is unknown (known: %s)", o.TrunkSelect, strings.Join(TrunkSelects(), ", "))
	}
	return nil
}

// RouterFactory builds a router for topology t; sc are the SL/SC tables
// (dor's dateline moves a packet to the second SC of its SL).
type RouterFactory func(t *Topology, sc qos.Tables, o RoutingOptions) (Router, error)

// Registry maps routing names to factories (Register, Names, Has, Get).
// Build it explicitly with NewRegistry or DefaultRegistry; registering a
// taken name is an error.
type Registry struct {
	*registry.Registry[RouterFactory]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{registry.New[RouterFactory]("routing")} }

// DefaultRegistry returns a registry with every built-in routing: "direct"
// (single switch), "dor" (tori) and "updown" (k-ary n-trees). Adding a
// routing is one file and one line here.
func DefaultRegistry() *Registry {
	r := NewRegistry()
	must(r.Register("direct", func(t *Topology, _ qos.Tables, _ RoutingOptions) (Router, error) { return NewDirect(t) }))
	must(r.Register("dor", func(t *Topology, sc qos.Tables, o RoutingOptions) (Router, error) {
		return NewDOR(t, t.Dims, sc.SL2SC, sc.SC2SL, o)
	}))
	must(r.Register("updown", func(t *Topology, _ qos.Tables, _ RoutingOptions) (Router, error) { return NewUpDown(t) }))
	return r
}

func must(err error) { registry.Must(err) }

// New builds the routing called name for t with its default options.
func (r *Registry) New(name string, t *Topology, sc qos.Tables) (Router, error) {
	return r.NewWith(name, t, sc, RoutingOptions{})
}

// NewWith builds the routing called name for t with options o.
func (r *Registry) NewWith(name string, t *Topology, sc qos.Tables, o RoutingOptions) (Router, error) {
	f, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("routing %s: %w", name, err)
	}
	return f(t, sc, o)
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

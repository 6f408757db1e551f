package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/opasim/opasim/flow/dynamic"
	"github.com/opasim/opasim/flow/static"
)

// The Markov-chain application model (seed 001 section 3.3.3): an
// application moves through phases drawn from a transition matrix,
// starting at Init and ending at End.
const (
	PhaseInit  = iota // start: no traffic
	PhaseComp         // computation: an exponential time, no traffic
	PhaseComm         // communication: the Comm pattern among the tasks
	PhaseRead         // every task reads ReadSize from its storage server
	PhaseWrite        // every task writes WriteSize to its storage server
	PhaseEnd          // the end (absorbing)
	NumPhases
)

// PhaseNames are the phases' names, by number.
var PhaseNames = [NumPhases]string{"init", "comp", "comm", "read", "write", "end"}

// Markov is one application of the model.
type Markov struct {
	Tasks int `yaml:"tasks" json:"tasks"` // on servers 0..Tasks-1
	// Matrix[a][b] is the probability of going from phase a to phase b:
	// every row sums to 1 and End goes only to End. (Seed 001 also asks
	// the columns to sum to 1; no chain that reaches an absorbing End can
	// have End's column sum to 1, so that condition is not applied.)
	Matrix [NumPhases][NumPhases]float64 `yaml:"matrix" json:"matrix"`
	// CompMean is the mean of the exponential computation time.
	CompMean float64 `yaml:"comp_mean" json:"comp_mean"`
	// Comm is the pattern of a Comm phase among the tasks, of flows of
	// CommSize.
	Comm     Spec    `yaml:"comm" json:"comm"`
	CommSize float64 `yaml:"comm_size" json:"comm_size"`
	// Storage are the servers storage flows go to and come from (task i
	// uses Storage[i mod len]); ReadSize and WriteSize the flows' sizes.
	// Storage flows are of class 1 (I/O), the others of class 0
	// (application), for the dynamic engine's priority policies.
	Storage   []int32 `yaml:"storage" json:"storage"`
	ReadSize  float64 `yaml:"read_size" json:"read_size"`
	WriteSize float64 `yaml:"write_size" json:"write_size"`
	// MaxPhases bounds the phases drawn (End is forced after them; 0:
	// 1,000).
	MaxPhases int    `yaml:"max_phases" json:"max_phases"`
	Seed      uint64 `yaml:"seed" json:"seed"`
}

// MaxMarkovValue bounds the Markov model's and the applications' sizes
// and (mean) computation times, as dynamic.flow_size is bounded: times
// near the float64 limit would overflow once added.
const MaxMarkovValue = 1e300

// Check validates the model (rows summing to 1 within 1e-9, End
// absorbing, End reachable from Init, sizes and times).
func (m *Markov) Check(servers int) error {
	errs := m.check("markov ", servers)
	needsStorage := false
	for a := range NumPhases {
		needsStorage = needsStorage || m.Matrix[a][PhaseRead] > 0 || m.Matrix[a][PhaseWrite] > 0
	}
	if needsStorage && len(m.Storage) == 0 {
		errs = append(errs, "markov storage: [] is not allowed when read or write phases can occur: must name storage servers")
	}
	for i, s := range m.Storage {
		if s < 0 || int(s) >= servers {
			errs = append(errs, fmt.Sprintf("markov storage[%d]: %d is not allowed: must be a server in [0, %d)", i, s, servers))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// CheckChain validates what Check does but the storage servers (for
// FlowsOn, whose IOFunc places the storage flows), naming fields after
// prefix (e.g. "apps[0].markov.").
func (m *Markov) CheckChain(prefix string, servers int) error {
	if errs := m.check(prefix, servers); len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

func (m *Markov) check(prefix string, servers int) []string {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, prefix+fmt.Sprintf(format, a...)) }
	if m.Tasks < 2 || m.Tasks > servers {
		add("tasks: %d is not allowed: must be in [2, %d] (the servers)", m.Tasks, servers)
	}
	for a := range NumPhases {
		sum := 0.0
		for b := range NumPhases {
			p := m.Matrix[a][b]
			if !(p >= 0 && p <= 1) {
				add("matrix[%s][%s]: %v is not allowed: must be in [0, 1]", PhaseNames[a], PhaseNames[b], p)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			add("matrix row %s: sums to %v, must sum to 1", PhaseNames[a], sum)
		}
	}
	if m.Matrix[PhaseEnd][PhaseEnd] != 1 {
		add("matrix[end][end]: %v is not allowed: end is absorbing (1)", m.Matrix[PhaseEnd][PhaseEnd])
	}
	if !m.reachesEnd() {
		add("matrix: end cannot be reached from init")
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"comp_mean", m.CompMean}, {"comm_size", m.CommSize}, {"read_size", m.ReadSize}, {"write_size", m.WriteSize}} {
		if !(x.v >= 0) || x.v > MaxMarkovValue {
			add("%s: %v is not allowed: must be in [0, %g]", x.name, x.v, MaxMarkovValue)
		}
	}
	if m.MaxPhases < 0 || m.MaxPhases > MaxMarkovPhases {
		add("max_phases: %d is not allowed: must be in [0, %d] (0: 1000)", m.MaxPhases, MaxMarkovPhases)
	}
	return errs
}

func (m *Markov) reachesEnd() bool {
	seen := [NumPhases]bool{PhaseInit: true}
	stack := []int{PhaseInit}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for b := range NumPhases {
			if m.Matrix[a][b] > 0 && !seen[b] {
				seen[b] = true
				stack = append(stack, b)
			}
		}
	}
	return seen[PhaseEnd]
}

// Walk draws the phases from Init to End (both included).
func (m *Markov) Walk() []int {
	rng := rand.New(rand.NewPCG(m.Seed, 0x6d61726b))
	limit := m.MaxPhases
	if limit == 0 {
		limit = 1000
	}
	walk := []int{PhaseInit}
	a := PhaseInit
	for a != PhaseEnd {
		if len(walk) > limit {
			a = PhaseEnd
		} else {
			x, b := rng.Float64(), 0
			for ; b < NumPhases-1; b++ {
				if x < m.Matrix[a][b] {
					break
				}
				x -= m.Matrix[a][b]
			}
			for m.Matrix[a][b] == 0 { // rounding left x past the last non-zero entry
				b--
			}
			a = b
		}
		walk = append(walk, a)
	}
	return walk
}

// MaxFlows bounds the flows Flows (or FlowsOn, whose storage flows are at
// most two a task) would build, without drawing the walk: every phase up
// to the bound on phases (max_phases, 0: 1,000, and init and end) with
// the most flows a phase may have — the comm pattern's (counted up to
// limit) or two a task — and its end barrier. It saturates at 2^62.
func (m *Markov) MaxFlows(limit int64) int64 {
	phases := int64(m.MaxPhases)
	if phases == 0 {
		phases = 1000
	}
	phases += 2
	per := 2 * int64(m.Tasks)
	if m.Comm.Name != "" && m.Tasks >= 2 {
		if comm, err := Build(m.Comm, m.Tasks, m.Seed); err == nil {
			per = max(per, static.CountFlows(comm, limit))
		}
	}
	per++
	if phases > (1<<62)/per {
		return 1 << 62
	}
	return phases * per
}

// MaxMarkovPhases bounds max_phases.
const MaxMarkovPhases = 1 << 24

// Flows draws the walk and turns it into causal flows for the dynamic
// engine: each phase starts when the previous one has ended (a barrier
// flow of size 0 on task 0 marks each end); Comp is a barrier delayed by
// an exponential time; Comm the pattern's flows; Read and Write one flow
// per task from or to its storage server. It returns the flows and the
// walk.
func (m *Markov) Flows(servers int) ([]dynamic.Flow, []int, error) {
	if err := m.Check(servers); err != nil {
		return nil, nil, err
	}
	nodes := make([]int32, m.Tasks)
	for i := range nodes {
		nodes[i] = int32(i)
	}
	io := func(task int, write bool, size float64, add func(src, dst int32, size float64)) {
		st := m.Storage[task%len(m.Storage)]
		if write {
			add(int32(task), st, size)
		} else {
			add(st, int32(task), size)
		}
	}
	p, err := m.FlowsOn(nodes, io)
	if err != nil {
		return nil, nil, err
	}
	return p.Flows, p.Walk, nil
}

// IOFunc gives the storage flows of one read or write of size by task
// (0..Tasks-1), calling add once per flow with its ends and size (a read
// may come from several places).
type IOFunc func(task int, write bool, size float64, add func(src, dst int32, size float64))

// Placed is a Markov application's flows.
type Placed struct {
	Flows []dynamic.Flow
	Walk  []int // the phases, Init to End
	// Ends[k] is the index in Flows of the barrier that ends phase
	// Walk[k] (the next phase's flows depend on it).
	Ends []int
}

// FlowsOn is Flows with task i on server nodes[i] and the storage flows
// given by io instead of m.Storage (which it ignores). The flows of
// Comm and of io refer to the tasks' servers; storage flows are of class
// 1, the others of class 0. The matrix, sizes and times must be valid
// (Check); nodes must hold m.Tasks servers.
func (m *Markov) FlowsOn(nodes []int32, io IOFunc) (*Placed, error) {
	if len(nodes) != m.Tasks {
		return nil, fmt.Errorf("markov: %d servers for %d tasks", len(nodes), m.Tasks)
	}
	var comm static.Pattern
	var err error
	if m.Comm.Name != "" {
		if comm, err = Build(m.Comm, m.Tasks, m.Seed); err != nil {
			return nil, fmt.Errorf("markov comm %w", err)
		}
	}
	walk := m.Walk()
	rng := rand.New(rand.NewPCG(m.Seed, 0x636f6d70))
	p := &Placed{Walk: walk, Ends: make([]int, 0, len(walk))}
	flows := p.Flows
	barrier := -1
	deps := func() []int {
		if barrier < 0 {
			return nil
		}
		return []int{barrier}
	}
	for _, ph := range walk {
		start := len(flows)
		delay := 0.0
		switch ph {
		case PhaseComp:
			delay = rng.ExpFloat64() * m.CompMean
		case PhaseComm:
			if comm == nil {
				return nil, fmt.Errorf("markov comm: a comm phase needs a pattern")
			}
			comm.Flows(0, int32(m.Tasks), func(src, dst int32) {
				flows = append(flows, dynamic.Flow{Src: nodes[src], Dst: nodes[dst], Size: m.CommSize, Deps: deps()})
			})
		case PhaseRead, PhaseWrite:
			size := m.ReadSize
			if ph == PhaseWrite {
				size = m.WriteSize
			}
			for t := 0; t < m.Tasks; t++ {
				io(t, ph == PhaseWrite, size, func(src, dst int32, size float64) {
					flows = append(flows, dynamic.Flow{Src: src, Dst: dst, Size: size, Deps: deps(), Class: 1})
				})
			}
		}
		flows = append(flows, phaseEnd(nodes[0], len(flows), start, barrier, delay))
		barrier = len(flows) - 1
		p.Ends = append(p.Ends, barrier)
	}
	p.Flows = flows
	return p, nil
}

// phaseEnd is the zero-size flow, on server node, that ends a phase
// whose flows are [start, n): after its flows, or, with none, after the
// previous end (barrier, if not negative) plus the computation (delay).
func phaseEnd(node int32, n, start, barrier int, delay float64) dynamic.Flow {
	end := dynamic.Flow{Src: node, Dst: node, Deps: make([]int, 0, n-start+1), Delay: delay}
	for i := start; i < n; i++ {
		end.Deps = append(end.Deps, i)
	}
	if len(end.Deps) == 0 && barrier >= 0 {
		end.Deps = append(end.Deps, barrier)
	}
	return end
}

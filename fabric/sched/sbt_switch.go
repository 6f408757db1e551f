package sched

import "fmt"

// SBTSwitchTable is the SBT arbitration table of seed 000 section 3.2.1,
// Table 3: one table per switch instead of one per output port. It has N
// rows (SLs) and p + 2 columns: the SL (here the row's index), its weight
// x_i (SL.SBTWeight), and for each output port j the remaining weight
// x_i − α_ij. Algorithm 1 already addresses the table this way:
// arbiter_table[pOut][SL] is port pOut's column and resetQoSTable(switch,
// pOut) copies the Weight column into that column alone.
//
// Port(j) is output port j's scheduler, a view on column j: Algorithm 1
// exactly as sbt runs it (same decisions on every input), reading the
// Weight column and reading and writing only its own column and its own
// last_vl_selec. The Weight column is written once, here, and never again,
// so the ports of a switch share no mutable state: a port's decisions
// depend on its own heads only, whichever order the engine steps the
// switch's ports in and however long its windows are (docs/schedulers.md,
// sbt_switch).
//
// Resets follow Algorithm 1 (lines 22-23: every SL at a head and its weight
// spent), as sbt does; Table 3's sentence "when Σ x_i = 0 in a given column
// the values from the Weight column are copied" read alone would also
// reset while an SL with no weight left is not at a head (the prose rule,
// sbt_strict).
type SBTSwitchTable struct {
	// cells holds the whole table, column by column: the Weight column
	// (rows 0..N-1), then port 0's remaining weights, port 1's, and so on.
	cells []int
	n     int // N, the rows
}

// sbtPort is output port j's view of an SBTSwitchTable: sbt's Algorithm 1
// with initial pointing at the shared Weight column (which sbt only reads,
// as the source of resetQoSTable) and weights at column j.
type sbtPort struct {
	sbt
	table *SBTSwitchTable
	port  int
}

// NewSBTSwitchTable builds the table of a switch with ports output ports
// from cfg's SBT column, every port's column set to the weights.
func NewSBTSwitchTable(cfg Config, ports int) (*SBTSwitchTable, error) {
	w, err := sbtWeights("sbt_switch", cfg)
	if err != nil {
		return nil, err
	}
	if ports < 1 {
		return nil, fmt.Errorf("sbt_switch: %d ports, want at least 1", ports)
	}
	n := len(w)
	t := &SBTSwitchTable{cells: make([]int, n*(ports+1)), n: n}
	for c := 0; c <= ports; c++ {
		copy(t.cells[c*n:(c+1)*n], w)
	}
	return t, nil
}

// Ports is the number of output ports (remaining-weight columns).
func (t *SBTSwitchTable) Ports() int { return len(t.cells)/t.n - 1 }

// Weight is the Weight column, x_i per SL. It is the table's own: the
// caller must not change it.
func (t *SBTSwitchTable) Weight() []int { return t.column(-1) }

// Remaining is port j's column, x_i − α_ij per SL (the table's own).
func (t *SBTSwitchTable) Remaining(j int) []int { return t.column(j) }

// column is port j's column, or the Weight column for j = -1, capped so
// that nothing can grow it into the next column.
func (t *SBTSwitchTable) column(j int) []int {
	lo := (j + 1) * t.n
	return t.cells[lo : lo+t.n : lo+t.n]
}

// Port returns output port j's scheduler, a view on column j. Each call
// returns a new view with last_vl_selec at 0: build one per port.
func (t *SBTSwitchTable) Port(j int) Scheduler {
	if j < 0 || j >= t.Ports() {
		panic(fmt.Sprintf("sbt_switch: port %d of a table of %d ports", j, t.Ports()))
	}
	return &sbtPort{sbt: sbt{initial: t.Weight(), weights: t.column(j)}, table: t, port: j}
}

// Table is the table the view works on and its port's column.
func (s *sbtPort) Table() (*SBTSwitchTable, int) { return s.table, s.port }

// NewSBTSwitch builds one sbt_switch scheduler alone: port 0 of a table of
// one port (a NIC's: a NIC has one port). A switch's output ports are built
// together by NewSBTSwitchPorts.
func NewSBTSwitch(cfg Config) (Scheduler, error) {
	t, err := NewSBTSwitchTable(cfg, 1)
	if err != nil {
		return nil, err
	}
	return t.Port(0), nil
}

// NewSBTSwitchPorts builds the schedulers of a switch's output ports, views
// on one SBTSwitchTable (Registration.PerSwitch).
func NewSBTSwitchPorts(cfg Config, ports int) ([]Scheduler, error) {
	t, err := NewSBTSwitchTable(cfg, ports)
	if err != nil {
		return nil, err
	}
	s := make([]Scheduler, ports)
	for j := range s {
		s[j] = t.Port(j)
	}
	return s, nil
}

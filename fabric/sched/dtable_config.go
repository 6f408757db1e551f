package sched

import (
	"fmt"

	"github.com/opasim/opasim/problem"
)

// NewDTable builds the DTable scheduler of seed 000 section 3.3 from
// cfg.Table (weights in credits), the SLs' MTUs (credits) and SCs, and
// SC2VL. It rejects only what leaves Algorithm 2 undefined, listing every
// problem at once; entry weights below the SL's MTU are legal (line 26 runs
// the deficit counter into debt, see dtable).
func NewDTable(cfg Config) (Scheduler, error) {
	if err := validateDTable("dtable", cfg); err != nil {
		return nil, err
	}
	n := len(cfg.SLs)
	s := &dtable{
		dtWalk:  newDTWalk(cfg),
		mtu:     make([]int, n),
		scs:     make([][]int, n),
		sc2vl:   append([]int(nil), cfg.SC2VL...),
		deficit: make([]int, n),
		scNext:  make([]int, n),
		lastSL:  -1,
		cnt:     cfg.Counters,
	}
	for i, sl := range cfg.SLs {
		s.mtu[i] = sl.MTUCredits
		s.scs[i] = append([]int(nil), cfg.SCsOf(i)...)
	}
	return s, nil
}

// newDTWalk copies cfg.Table and starts the walk before its first entry.
func newDTWalk(cfg Config) dtWalk {
	return dtWalk{table: append([]Entry(nil), cfg.Table...), cur: -1}
}

// validateDTable lists every problem of cfg for the table scheduler name
// (dtable or dtable_sc, which read the same Config).
func validateDTable(name string, cfg Config) error {
	if err := checkSLCount(name, cfg); err != nil {
		return err
	}
	if len(cfg.Table) == 0 {
		return fmt.Errorf("%s: Config.Table is empty; DTable needs an arbitration table of (SL, weight) entries (seed 000 Tables 6 and 10, see fabric/dtable)", name)
	}
	errs, hasEntry := checkEntries(name, cfg)
	if err := checkTable(name, "Table", len(cfg.Table), cfg); err != nil {
		errs = append(errs, err)
	}
	for i, sl := range cfg.SLs {
		if hasEntry[i] && sl.MTUCredits <= 0 {
			errs = append(errs, fmt.Errorf("%s: SLs[%d].MTUCredits = %d, want > 0 (line 26 charges it per transmission)", name, i, sl.MTUCredits))
		}
		if err := cfg.Counters.fitsSigned(name, fmt.Sprintf("SLs[%d].MTUCredits", i), sl.MTUCredits); hasEntry[i] && err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, checkSCs(name, cfg, i)...)
		if !hasEntry[i] && reachable(cfg, i) {
			errs = append(errs, fmt.Errorf("%s: SL %d (%s) has SCs but no entry in Config.Table; its packets could never be sent", name, i, sl.Name))
		}
	}
	return problem.List(errs).Err()
}

// checkEntries checks the SL and weight of every table entry and reports
// which SLs own at least one entry.
func checkEntries(name string, cfg Config) ([]error, []bool) {
	var errs []error
	if err := cfg.Counters.validate(name); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.Counters.fitTable(name, "Table", cfg.Table); err != nil {
		errs = append(errs, err)
	}
	hasEntry := make([]bool, len(cfg.SLs))
	for e, en := range cfg.Table {
		if en.SL < 0 || en.SL >= len(cfg.SLs) {
			errs = append(errs, fmt.Errorf("%s: Table[%d].SL = %d, want 0..%d", name, e, en.SL, len(cfg.SLs)-1))
			continue
		}
		if en.Weight < 0 {
			errs = append(errs, fmt.Errorf("%s: Table[%d].Weight = %d, want >= 0", name, e, en.Weight))
		}
		hasEntry[en.SL] = true
	}
	return errs, hasEntry
}

// checkSCs checks that every SC of SL i has a VL in SC2VL.
func checkSCs(name string, cfg Config, i int) []error {
	var errs []error
	for _, sc := range cfg.SCsOf(i) {
		if sc < 0 || sc >= len(cfg.SC2VL) {
			errs = append(errs, fmt.Errorf("%s: SL2SC[%d] has SC %d, want 0..%d (an index of SC2VL)", name, i, sc, len(cfg.SC2VL)-1))
		}
	}
	return errs
}

// reachable reports whether packets of SL i can appear at a head: it owns
// an SC, or SC2SL maps some SC to it.
func reachable(cfg Config, i int) bool {
	if len(cfg.SCsOf(i)) > 0 {
		return true
	}
	for _, sl := range cfg.SC2SL {
		if sl == i {
			return true
		}
	}
	return false
}

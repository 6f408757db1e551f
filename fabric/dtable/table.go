package dtable

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/opasim/opasim/fabric/sched"
	"github.com/opasim/opasim/problem"
)

// Table is the arbitration table file a run loads (seed 000 Table 6 form):
// the SLs with their MTUs, then the entries in slot order.
//
//	sls:
//	  - {name: VO, mtu: 2}
//	entries:
//	  - {sl: VO, weight: 7} # 0
type Table struct {
	SLs     []TableSL    `yaml:"sls" json:"sls"`
	Entries []TableEntry `yaml:"entries" json:"entries"`
}

// TableSL is one SL of a table file; its index is the SL number.
type TableSL struct {
	Name string `yaml:"name" json:"name"`
	MTU  int    `yaml:"mtu" json:"mtu"` // credits
}

// TableEntry is one arbitration table entry, naming its SL.
type TableEntry struct {
	SL     string `yaml:"sl" json:"sl"`
	Weight int    `yaml:"weight" json:"weight"` // credits
}

// Sched returns the entries as the scheduler takes them, SL numbered by
// its position in t.SLs. t must be valid (see Validate).
func (t Table) Sched() []sched.Entry {
	index := map[string]int{}
	for i, s := range t.SLs {
		index[s.Name] = i
	}
	out := make([]sched.Entry, len(t.Entries))
	for j, e := range t.Entries {
		out[j] = sched.Entry{SL: index[e.SL], Weight: e.Weight}
	}
	return out
}

// MTUs returns the MTU of every SL in t.SLs order, credits.
func (t Table) MTUs() []int {
	out := make([]int, len(t.SLs))
	for i, s := range t.SLs {
		out[i] = s.MTU
	}
	return out
}

// WriteTable writes r's arbitration table as YAML that ReadTable loads.
func (r *Result) WriteTable(w io.Writer) error { return r.File.WriteYAML(w) }

// WriteYAML writes t as YAML, one flow-style line per SL and per entry,
// each entry commented with its slot number.
func (t Table) WriteYAML(w io.Writer) error {
	sls := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range t.SLs {
		sls.Content = append(sls.Content, flowMap("name", str(s.Name), "mtu", integer(s.MTU)))
	}
	entries := &yaml.Node{Kind: yaml.SequenceNode}
	for j, e := range t.Entries {
		n := flowMap("sl", str(e.SL), "weight", integer(e.Weight))
		n.LineComment = strconv.Itoa(j)
		entries.Content = append(entries.Content, n)
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, HeadComment: "DTable arbitration table (seed 000 section 3.3); weights and MTUs in credits",
		Content: []*yaml.Node{str("sls"), sls, str("entries"), entries}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	return enc.Close()
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
func integer(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
}

func flowMap(k1 string, v1 *yaml.Node, k2 string, v2 *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle,
		Content: []*yaml.Node{str(k1), v1, str(k2), v2}}
}

// ReadTable loads a table file strictly: unknown keys, a second document
// and every invalid value are errors (see Table.Validate).
func ReadTable(r io.Reader) (Table, error) {
	var t Table
	if err := decodeStrict(r, &t, "table"); err != nil {
		return Table{}, err
	}
	if err := t.Validate(); err != nil {
		return Table{}, err
	}
	return t, nil
}

// decodeStrict decodes exactly one YAML document into v, refusing unknown keys.
func decodeStrict(r io.Reader, v any, what string) error {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s file is empty", what)
		}
		return fmt.Errorf("%s file: %w", what, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return fmt.Errorf("%s file holds more than one YAML document (allowed: exactly one)", what)
	case !errors.Is(err, io.EOF):
		return fmt.Errorf("%s file, after the first document: %w", what, err)
	}
	return nil
}

// Validate returns every problem of t at once: 1 to MaxSLs SLs with valid,
// distinct names and MTUs in [1, MaxCredits]; 1 to MaxEntries entries, each
// naming a listed SL with a weight in [the SL's MTU, MaxWeight] (an entry
// must carry at least one MTU, seed 000 section 3.3.3); every SL has an entry.
func (t Table) Validate() error {
	var ps problems
	mtu := t.checkSLs(&ps)
	t.checkEntries(&ps, mtu)
	return problem.List(ps).Err()
}

// checkSLs returns the MTU of every usable SL by name.
func (t Table) checkSLs(ps *problems) map[string]int {
	if len(t.SLs) == 0 || len(t.SLs) > MaxSLs {
		ps.add("", "sls", "has %d SLs (allowed 1 to %d)", len(t.SLs), MaxSLs)
	}
	mtu := map[string]int{}
	for i, s := range t.SLs {
		where := fmt.Sprintf("sls[%d]", i)
		okN := ps.name(where, s.Name)
		okM := ps.intIn(where, "mtu", s.MTU, 1, MaxCredits)
		if _, dup := mtu[s.Name]; dup && okN {
			ps.add(where, "name", "%q is listed twice", s.Name)
		} else if okN && okM {
			mtu[s.Name] = s.MTU
		}
	}
	return mtu
}

func (t Table) checkEntries(ps *problems, mtu map[string]int) {
	if len(t.Entries) == 0 || len(t.Entries) > MaxEntries {
		ps.add("", "entries", "has %d entries (allowed 1 to %d)", len(t.Entries), MaxEntries)
	}
	seen := map[string]bool{}
	for j, e := range t.Entries {
		where := fmt.Sprintf("entries[%d]", j)
		m, ok := mtu[e.SL]
		if !ok {
			ps.add(where, "sl", "%q is not one of the sls (%s)", e.SL, t.names())
			continue
		}
		seen[e.SL] = true
		if e.Weight < m && e.Weight >= 1 {
			ps.add(where, "weight", "%d is below the MTU %d of SL %s by %d (allowed [%d, %d])", e.Weight, m, e.SL, m-e.Weight, m, MaxWeight)
		} else {
			ps.intIn(where, "weight", e.Weight, 1, MaxWeight)
		}
	}
	for _, s := range t.SLs {
		if _, ok := mtu[s.Name]; ok && !seen[s.Name] {
			ps.add("SL "+s.Name, "entries", "0: the SL has no table entry (needs at least 1)")
		}
	}
}

func (t Table) names() string {
	names := make([]string, len(t.SLs))
	for i, s := range t.SLs {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

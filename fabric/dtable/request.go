package dtable

import (
	"fmt"
	"strconv"
)

// Limits of a Request and of a table file. They keep every weight below
// 2^31 (N·M ≤ 2^12·2^10·2^8) so nothing overflows, and match OPA, whose SL
// field is 5 bits wide.
const (
	MaxEntries    = 1 << 12 // N, table entries
	MaxCredits    = 1 << 10 // GMTU and MTU_i, credits
	MaxDecoupling = 1 << 8  // w and k
	MaxSLs        = 32
	MaxNameLen    = 64
	MaxWeight     = 1<<31 - 1 // an entry weight in a table file, credits

	// ShareTolerance is how far the shares may sum away from 1.
	ShareTolerance = 1e-6
)

// Request is the input of the configuration methodology (seed 000 Table 4).
type Request struct {
	Entries int         `yaml:"entries" json:"entries"` // N
	GMTU    int         `yaml:"gmtu" json:"gmtu"`       // general MTU, credits
	W       int         `yaml:"w" json:"w"`             // maximum weight decoupling parameter
	K       int         `yaml:"k" json:"k"`             // bandwidth pool decoupling parameter
	SLs     []SLRequest `yaml:"sls" json:"sls"`
}

// SLRequest is what one SL asks for.
type SLRequest struct {
	Name     string  `yaml:"name" json:"name"`
	Distance int     `yaml:"distance" json:"distance"` // maximum distance between consecutive entries
	MTU      int     `yaml:"mtu" json:"mtu"`           // MTU_i, credits
	Share    float64 `yaml:"share" json:"share"`       // φ_i, fraction of the link
}

// Problem is one thing wrong with a request or a table file. Configure,
// Validate, ParseSL, LoadRequest and ReadTable join every Problem they find
// in a problem.List, so errors.As finds each one.
type Problem struct {
	Where string // "SL CL", "sls[2]", "sls" (all SLs together), or "" for a top-level field
	Field string // the field in its file spelling: "share", "k", "entries"
	Msg   string // value, bound and amount: "0.6 is above maxφ 0.5 by 0.1 (...)"
}

func (p *Problem) Error() string {
	if p.Where == "" {
		return p.Field + " " + p.Msg
	}
	return p.Where + ": " + p.Field + " " + p.Msg
}

// problems collects Problems in the order they are found.
type problems []error

func (ps *problems) add(where, field, format string, args ...any) {
	*ps = append(*ps, &Problem{Where: where, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// intIn checks lo ≤ v ≤ hi and names the bound v misses and by how much.
func (ps *problems) intIn(where, field string, v, lo, hi int) bool {
	switch {
	case v < lo && lo == 1:
		ps.add(where, field, "%d must be positive (allowed [1, %d])", v, hi)
	case v < lo:
		ps.add(where, field, "%d is below %d by %d (allowed [%d, %d])", v, lo, lo-v, lo, hi)
	case v > hi:
		ps.add(where, field, "%d is above the limit %d by %d (allowed [%d, %d])", v, hi, v-hi, lo, hi)
	default:
		return true
	}
	return false
}

// num prints a float for a message: six significant digits, so that a
// float error such as 0.09999999999999998 reads 0.1 but a tiny excess
// still shows.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// validName reports whether s is a usable SL name: 1 to MaxNameLen
// letters, digits, '_', '-' or '.', so it survives the NAME:… flag form,
// YAML and the printed table unchanged.
func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for _, c := range s {
		ok := c == '_' || c == '-' || c == '.' ||
			('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

func (ps *problems) name(where, name string) bool {
	if validName(name) {
		return true
	}
	ps.add(where, "name", "%q is not a valid SL name (1 to %d letters, digits, '_', '-' or '.')", name, MaxNameLen)
	return false
}

// label names SL i in messages: "SL VO", or "sls[i]" when the name is unusable.
func label(sls []SLRequest, i int) string {
	if validName(sls[i].Name) {
		return "SL " + sls[i].Name
	}
	return fmt.Sprintf("sls[%d]", i)
}

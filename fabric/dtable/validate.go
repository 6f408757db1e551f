package dtable

import (
	"fmt"
	"math"
	"strings"

	"github.com/opasim/opasim/problem"
)

// boundSlack forgives float noise when a share sits exactly on minφ or maxφ
// (Table 5's 0.33333 against maxφ 1/3 is inside, not on, the bound).
const boundSlack = 1e-9

// Validate returns every problem of r at once (a problem.List of *Problem),
// or nil. Each problem names the SL or field, the value, the bound it
// misses and by how much (seed 000 section 3.3.2: minφ ≤ φ ≤ maxφ, k ≤ w).
func (r Request) Validate() error {
	var ps problems
	r.checkGlobals(&ps)
	for i := range r.SLs {
		r.checkSL(&ps, i)
	}
	r.checkNames(&ps)
	r.checkShareSum(&ps)
	r.checkEntrySum(&ps)
	return problem.List(ps).Err()
}

func (r Request) checkGlobals(ps *problems) {
	ps.intIn("", "entries", r.Entries, 1, MaxEntries)
	ps.intIn("", "gmtu", r.GMTU, 1, MaxCredits)
	okW := ps.intIn("", "w", r.W, 1, MaxDecoupling)
	okK := ps.intIn("", "k", r.K, 1, MaxDecoupling)
	if okW && okK && r.K > r.W {
		ps.add("", "k", "%d is above w %d by %d (k ≤ w keeps pool = N·GMTU·k within N·M = N·GMTU·w)", r.K, r.W, r.K-r.W)
	}
	switch n := len(r.SLs); {
	case n == 0:
		ps.add("", "sls", "is empty (allowed 1 to %d SLs)", MaxSLs)
	case n > MaxSLs:
		ps.add("", "sls", "has %d SLs, above the limit %d by %d", n, MaxSLs, n-MaxSLs)
	}
}

func (r Request) globalsOK() bool {
	return r.Entries >= 1 && r.Entries <= MaxEntries && r.GMTU >= 1 && r.GMTU <= MaxCredits &&
		r.W >= 1 && r.W <= MaxDecoupling && r.K >= 1 && r.K <= r.W
}

func (r Request) checkSL(ps *problems, i int) {
	s, where := r.SLs[i], label(r.SLs, i)
	ps.name(where, s.Name)
	okD := r.checkDistance(ps, where, s.Distance)
	okM := r.checkMTU(ps, where, s.MTU)
	okS := checkShare(ps, where, s.Share)
	if okD && okM && okS && r.globalsOK() {
		r.checkBounds(ps, where, s)
	}
}

func (r Request) checkDistance(ps *problems, where string, d int) bool {
	if !ps.intIn(where, "distance", d, 1, MaxEntries) {
		return false
	}
	if r.Entries >= 1 && r.Entries%d != 0 {
		ps.add(where, "distance", "%d does not divide entries %d (%d mod %d = %d)", d, r.Entries, r.Entries, d, r.Entries%d)
		return false
	}
	return true
}

func (r Request) checkMTU(ps *problems, where string, mtu int) bool {
	if !ps.intIn(where, "mtu", mtu, 1, MaxCredits) {
		return false
	}
	if r.GMTU >= 1 && mtu > r.GMTU {
		ps.add(where, "mtu", "%d is above gmtu %d by %d", mtu, r.GMTU, mtu-r.GMTU)
		return false
	}
	return true
}

func checkShare(ps *problems, where string, phi float64) bool {
	switch {
	case math.IsNaN(phi) || math.IsInf(phi, 0):
		ps.add(where, "share", "%v is not a finite number (allowed (0, 1])", phi)
	case phi <= 0:
		ps.add(where, "share", "%s must be positive (allowed (0, 1])", num(phi))
	case phi > 1:
		ps.add(where, "share", "%s is above 1 by %s (allowed (0, 1])", num(phi), num(phi-1))
	default:
		return true
	}
	return false
}

// checkBounds refuses φ outside [minφ, maxφ] (seed 000 section 3.3.2).
func (r Request) checkBounds(ps *problems, where string, s SLRequest) {
	n := r.Entries / s.Distance
	lo, hi := r.minPhi(n, s.MTU), r.maxPhi(n)
	if s.Share < lo*(1-boundSlack) {
		ps.add(where, "share", "%s is below minφ %s by %s (n=%d entries, MTU=%d, pool=%d)",
			num(s.Share), num(lo), num(lo-s.Share), n, s.MTU, r.pool())
	}
	if s.Share > hi*(1+boundSlack) {
		ps.add(where, "share", "%s is above maxφ %s by %s (n=%d entries, w=%d, k=%d)",
			num(s.Share), num(hi), num(s.Share-hi), n, r.W, r.K)
	}
}

func (r Request) checkNames(ps *problems) {
	first := map[string]int{}
	for i, s := range r.SLs {
		if j, dup := first[s.Name]; dup && validName(s.Name) {
			ps.add(fmt.Sprintf("sls[%d]", i), "name", "%q is already used by sls[%d]", s.Name, j)
			continue
		}
		first[s.Name] = i
	}
}

func (r Request) checkShareSum(ps *problems) {
	sum := 0.0
	for _, s := range r.SLs {
		if math.IsNaN(s.Share) || math.IsInf(s.Share, 0) {
			return
		}
		sum += s.Share
	}
	if len(r.SLs) > 0 && math.Abs(sum-1) > ShareTolerance {
		ps.add("sls", "shares", "sum to %s, not 1 (off by %s, tolerance %g)", num(sum), num(sum-1), ShareTolerance)
	}
}

// checkEntrySum requires Σ n_i ≤ N; unused entries are left out of the table.
func (r Request) checkEntrySum(ps *problems) {
	if r.Entries < 1 || r.Entries > MaxEntries {
		return
	}
	sum, parts := 0, []string{}
	for _, s := range r.SLs {
		if s.Distance < 1 || r.Entries%s.Distance != 0 {
			return
		}
		sum += r.Entries / s.Distance
		parts = append(parts, fmt.Sprintf("%s %d", s.Name, r.Entries/s.Distance))
	}
	if sum > r.Entries {
		ps.add("sls", "entries", "n_i = N/distance_i sum to %d (%s), above entries %d by %d",
			sum, strings.Join(parts, ", "), r.Entries, sum-r.Entries)
	}
}

// M is the maximum weight per entry, GMTU·w.
func (r Request) M() int { return r.GMTU * r.W }

func (r Request) pool() int { return r.Entries * r.GMTU * r.K }

// minPhi is n_i·MTU_i/pool and maxPhi is n_i·w/(N·k) (seed 000 section 3.3.2).
func (r Request) minPhi(n, mtu int) float64 { return float64(n*mtu) / float64(r.pool()) }
func (r Request) maxPhi(n int) float64      { return float64(n*r.W) / float64(r.Entries*r.K) }

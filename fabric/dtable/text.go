package dtable

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text prints the configuration as seed 000 Tables 5 and 10 do: the
// parameters, one aligned row per SL (entries, distance, MTU, minφ, maxφ,
// φ, entry weights after correction, Σweight before correction, Rφ,
// Dweight, Fweight after correction, Fφ), the totals and the warnings.
// Shares are rounded to 5 decimals; in the entry weights, "7×32" means 32
// consecutive entries (in table order) of weight 7, and a lone number
// means every entry of the SL has that weight.
func (r *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "DTable configuration (seed 000 sections 3.3.2-3.3.3)\n")
	fmt.Fprintf(&b, "N = %d, GMTU = %d, w = %d, k = %d, M = GMTU·w = %d, pool = N·GMTU·k = %d\n",
		r.Entries, r.GMTU, r.W, r.K, r.M, r.Pool)
	if unused := r.Entries - r.UsedEntries; unused > 0 {
		fmt.Fprintf(&b, "entries used: %d of %d (%d unused, left out of the table)\n", r.UsedEntries, r.Entries, unused)
	}
	b.WriteString("\n")
	b.WriteString(alignRows(r.rows()))
	b.WriteString("entry weights after correction in table order (w×c: c consecutive entries of weight w);\n" +
		"Σweight before correction, Fweight after; Rφ = Σweight/total, Fφ = Fweight/total\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

var textHeader = []string{"SL", "entries", "distance", "MTU", "minφ", "maxφ", "φ",
	"entry weights", "Σweight", "Rφ", "Dweight", "Fweight", "Fφ"}

func (r *Result) rows() [][]string {
	rows := [][]string{textHeader}
	var t SLResult
	dsum := 0
	for _, s := range r.SLs {
		rows = append(rows, []string{s.Name, itoa(s.Entries), itoa(s.Distance), itoa(s.MTU),
			f5(s.MinPhi), f5(s.MaxPhi), f5(s.Phi), runs(s.EntryWeights), itoa(s.WeightSum),
			f5(s.RPhi), signed(s.DWeight), itoa(s.FWeight), f5(s.FPhi)})
		t.Entries, t.MinPhi, t.MaxPhi, t.Phi = t.Entries+s.Entries, t.MinPhi+s.MinPhi, t.MaxPhi+s.MaxPhi, t.Phi+s.Phi
		t.RPhi, t.FPhi, dsum = t.RPhi+s.RPhi, t.FPhi+s.FPhi, dsum+s.DWeight
	}
	return append(rows, []string{"total", itoa(t.Entries), "", "", f5(t.MinPhi), f5(t.MaxPhi), f5(t.Phi),
		"", itoa(r.WeightSum), f5(t.RPhi), signed(dsum), itoa(r.FWeight), f5(t.FPhi)})
}

// alignRows left-aligns the first column and right-aligns the others,
// measuring width in runes (φ, Σ and × are one column wide).
func alignRows(rows [][]string) string {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for c, cell := range row {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell))
			if c == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// runs prints weights compactly: "7×32, 6×32", "4, 3×3", or "39" when all
// weights are equal.
func runs(ws []int) string {
	var parts []string
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && ws[j] == ws[i] {
			j++
		}
		parts = append(parts, runText(ws[i], j-i, j-i == len(ws)))
		i = j
	}
	return strings.Join(parts, ", ")
}

func runText(w, count int, all bool) string {
	if all || count == 1 {
		return itoa(w)
	}
	return fmt.Sprintf("%d×%d", w, count)
}

func itoa(v int) string { return strconv.Itoa(v) }

func signed(v int) string {
	if v > 0 {
		return "+" + itoa(v)
	}
	return itoa(v)
}

// f5 rounds to 5 decimals as the paper prints shares, dropping trailing zeros.
func f5(x float64) string { return round(x, 5) }

// round rounds x to the given decimals, dropping trailing zeros.
func round(x float64, decimals int) string {
	p := math.Pow(10, float64(decimals))
	return strconv.FormatFloat(math.Round(x*p)/p, 'f', -1, 64)
}

// BoundsText prints Bounds as a block to follow Result.Text: per SL its
// guaranteed share (5 decimals) and its worst-case head wait in credits,
// cycles and ns (2 decimals), with the worst gap of the table walk.
func BoundsText(bounds []SLBound, link Link) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Bounds at one output port (eligible view; while the head waits, downstream credits are available\n"+
		"and every other SL is backlogged); 1 credit = %d flits = %d cycles, 1 cycle = %s ns\n\n",
		link.FlitsPerCredit, link.FlitsPerCredit, strconv.FormatFloat(link.CycleNs, 'f', -1, 64))
	rows := [][]string{{"SL", "share", "head wait (credits)", "cycles", "ns", "worst gap"}}
	for _, s := range bounds {
		name := s.Name
		if name == "" {
			name = itoa(s.SL)
		}
		if s.WaitCredits < 0 {
			rows = append(rows, []string{name, f5(s.Share), "never sent", "", "", ""})
			continue
		}
		rows = append(rows, []string{name, f5(s.Share), itoa(s.WaitCredits), itoa(s.WaitCycles),
			round(s.WaitNs, 2), fmt.Sprintf("%d→%d", s.GapFrom, s.GapTo)})
	}
	b.WriteString(alignRows(rows))
	b.WriteString("share: the SL's part of the link when every SL is backlogged, E/ΣE with\n" +
		"E = max(Σ of its entry weights, entries·MTU);\n" +
		"head wait: the longest a backlogged SL's head waits while the other SLs send, from the end of\n" +
		"its previous message (a head arriving at an idle SL waits at most one cycle less);\n" +
		"worst gap a→b: the walk leaves the SL's entry a and reaches its next entry b\n")
	return b.String()
}

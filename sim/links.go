package sim

import (
	"math"

	"github.com/opasim/opasim/fabric"
)

// LinkResults is the utilization of every link of a run: the flits it
// carried in the measurement window over the window's cycles. A link
// carries at most one flit a cycle, so 1 is a link busy every cycle of
// the window. Links are named by their sender (a NIC, or a switch port)
// and grouped in classes: "injection" (NIC to switch), "ejection" (switch
// to NIC), a torus's "dimension i +" and "dimension i −", a tree's
// "level l up" and "level l down".
type LinkResults struct {
	Classes []LinkClass `json:"classes"`
	// Links, one per wired link, in the order of fabric.Network.Links;
	// left out of the runs a sweep stores (the classes stay).
	Links []LinkUse `json:"links,omitempty"`
}

// LinkClass sums up one class of links.
type LinkClass struct {
	Class   string  `json:"class"`
	Links   int     `json:"links"`
	Mean    float64 `json:"mean"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Busiest string  `json:"busiest"` // the link with the highest utilization (the first, on a tie)
}

// LinkUse is one link's utilization, in all and per VL.
type LinkUse struct {
	From        string    `json:"from"` // "NIC n" or "switch s port p"
	To          string    `json:"to"`
	Class       string    `json:"class"`
	NIC         int       `json:"nic"`    // the sending NIC, -1 for a switch port
	Switch      int       `json:"switch"` // the sending switch, -1 for a NIC
	Port        int       `json:"port"`   // its port, -1 for a NIC
	Utilization float64   `json:"utilization"`
	PerVL       []float64 `json:"per_vl"`
}

// linkResults makes the per-link utilization from the window's flits per
// link and VL (fabric.Totals.LinkFlits) over measured cycles; nil when
// nothing was measured or the totals carry no link counts.
func linkResults(links []fabric.Link, flits [][]int64, measured int64) *LinkResults {
	if measured <= 0 || len(flits) != len(links) {
		return nil
	}
	r := &LinkResults{}
	at := map[string]int{} // class → its index in r.Classes
	for i, l := range links {
		if !l.Wired() {
			continue
		}
		u := LinkUse{From: l.From(), To: l.Dest(), Class: l.Class, NIC: l.NIC, Switch: l.Switch, Port: l.Port,
			PerVL: make([]float64, len(flits[i]))}
		var sum int64
		for vl, f := range flits[i] {
			u.PerVL[vl] = float64(f) / float64(measured)
			sum += f
		}
		u.Utilization = float64(sum) / float64(measured)
		r.Links = append(r.Links, u)
		c, ok := at[l.Class]
		if !ok {
			c = len(r.Classes)
			at[l.Class] = c
			r.Classes = append(r.Classes, LinkClass{Class: l.Class, Min: math.Inf(1), Max: -1})
		}
		cl := &r.Classes[c]
		cl.Links++
		cl.Mean += u.Utilization
		cl.Min = min(cl.Min, u.Utilization)
		if u.Utilization > cl.Max {
			cl.Max, cl.Busiest = u.Utilization, u.From
		}
	}
	for i := range r.Classes {
		r.Classes[i].Mean /= float64(r.Classes[i].Links)
	}
	return r
}

// ClassesOnly is r without its per-link list (what a sweep keeps of each
// run); nil stays nil.
func (r *LinkResults) ClassesOnly() *LinkResults {
	if r == nil {
		return nil
	}
	return &LinkResults{Classes: r.Classes}
}

package distrib

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/opasim/opasim/fabric"
)

// A member's part of the results is fabric.Totals of its own copy of the
// network, in which the components of other members' groups never ran:
// they are as built. So the run's totals are the built network's (the
// coordinator's copy, which never runs) plus, from each member, what its
// totals add to them. That holds field by field: counters add, the NIC
// entries are those that differ from the built ones, the statistics merge
// (fabric.Stats.Merge commutes), the first throttle is the earliest.

// wireTotals is fabric.Totals as sent: the latency histograms as
// snapshots (a histogram's state is not exported).
type wireTotals struct {
	Totals fabric.Totals
	Lat    []*hdrhistogram.Snapshot
	NetLat []*hdrhistogram.Snapshot
	Terms  fabric.ConservationTerms
}

// encodeTotals encodes t and the conservation terms c (gzip of JSON: the
// histograms' counts are mostly zeros).
func encodeTotals(t fabric.Totals, c fabric.ConservationTerms) ([]byte, error) {
	w := wireTotals{Totals: t, Terms: c}
	st := *t.Stats
	for i := range st.Lat {
		w.Lat, w.NetLat = append(w.Lat, st.Lat[i].Export()), append(w.NetLat, st.NetLat[i].Export())
	}
	st.Lat, st.NetLat = nil, nil
	w.Totals.Stats = &st
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if err := json.NewEncoder(z).Encode(&w); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxTotalsBytes bounds a decoded totals message.
const maxTotalsBytes = 256 << 20

func decodeTotals(b []byte) (fabric.Totals, fabric.ConservationTerms, error) {
	var w wireTotals
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return fabric.Totals{}, w.Terms, fmt.Errorf("totals: %w", err)
	}
	if err := json.NewDecoder(io.LimitReader(z, maxTotalsBytes)).Decode(&w); err != nil {
		return fabric.Totals{}, w.Terms, fmt.Errorf("totals: %w", err)
	}
	t := w.Totals
	if t.Stats == nil || len(w.Lat) != len(t.Stats.Offered) || len(w.NetLat) != len(t.Stats.Offered) {
		return fabric.Totals{}, w.Terms, fmt.Errorf("totals: the statistics do not have one histogram per SL")
	}
	for i := range w.Lat {
		t.Stats.Lat = append(t.Stats.Lat, hdrhistogram.Import(w.Lat[i]))
		t.Stats.NetLat = append(t.Stats.NetLat, hdrhistogram.Import(w.NetLat[i]))
	}
	return t, w.Terms, nil
}

// mergeTotals adds what part adds to base (the totals of the network as
// built) into sum, which starts as a copy of base with fresh statistics.
func mergeTotals(sum *fabric.Totals, part, base *fabric.Totals) error {
	if len(part.NICs) != len(base.NICs) {
		return fmt.Errorf("totals: %d NICs, the network has %d", len(part.NICs), len(base.NICs))
	}
	sum.Stats.Merge(part.Stats)
	for i, nic := range part.NICs {
		if nic != base.NICs[i] {
			sum.NICs[i] = nic
		}
	}
	if part.FirstThrottle >= 0 && (sum.FirstThrottle < 0 || part.FirstThrottle < sum.FirstThrottle) {
		sum.FirstThrottle = part.FirstThrottle
	}
	if part.PreemptionsByPair != nil {
		if sum.PreemptionsByPair == nil {
			sum.PreemptionsByPair = make([][]int64, len(part.PreemptionsByPair))
			for a := range sum.PreemptionsByPair {
				sum.PreemptionsByPair[a] = make([]int64, len(part.PreemptionsByPair[a]))
			}
		}
		for a := range part.PreemptionsByPair {
			for b, c := range part.PreemptionsByPair[a] {
				sum.PreemptionsByPair[a][b] += c
			}
		}
	}
	if err := addLinkFlits(sum, part, base); err != nil {
		return err
	}
	return addCounters(sum, part, base)
}

// addLinkFlits adds part's per-link flits less base's into sum (a copy of
// base's, baseTotals).
func addLinkFlits(sum, part, base *fabric.Totals) error {
	if len(part.LinkFlits) != len(base.LinkFlits) || len(sum.LinkFlits) != len(base.LinkFlits) {
		return fmt.Errorf("totals: %d links, the network has %d", len(part.LinkFlits), len(base.LinkFlits))
	}
	for i, vls := range part.LinkFlits {
		if len(vls) != len(base.LinkFlits[i]) {
			return fmt.Errorf("totals: link %d has %d VLs, the network's %d", i, len(vls), len(base.LinkFlits[i]))
		}
		for vl, f := range vls {
			sum.LinkFlits[i][vl] += f - base.LinkFlits[i][vl]
		}
	}
	return nil
}

// addCounters adds part's counters (every int64 field of Totals but
// FirstThrottle) less base's into sum; the count of schedulers, a fact
// of the network, is base's. A field of another kind is an error, so
// that a counter added to Totals is not silently dropped.
func addCounters(sum, part, base *fabric.Totals) error {
	s, p, b := reflect.ValueOf(sum).Elem(), reflect.ValueOf(part).Elem(), reflect.ValueOf(base).Elem()
	for i := 0; i < s.NumField(); i++ {
		switch name := s.Type().Field(i).Name; name {
		case "Stats", "NICs", "FirstThrottle", "PreemptionsByPair", "Schedulers", "LinkFlits":
		default:
			if s.Field(i).Kind() != reflect.Int64 {
				return fmt.Errorf("totals: field %s (%s) has no merge rule", name, s.Field(i).Kind())
			}
			s.Field(i).SetInt(s.Field(i).Int() + p.Field(i).Int() - b.Field(i).Int())
		}
	}
	return nil
}

// baseTotals are the totals of the built network n, ready to be merged
// into: the statistics fresh, the NIC entries copied.
func baseTotals(n *fabric.Network) (sum, base fabric.Totals) {
	base = n.Totals()
	sum = base
	sum.NICs = append([]fabric.NICTotals(nil), base.NICs...)
	sum.LinkFlits = make([][]int64, len(base.LinkFlits))
	for i, vls := range base.LinkFlits {
		sum.LinkFlits[i] = append([]int64(nil), vls...)
	}
	sum.Stats = fabric.NewStats(len(n.Config.QoS.SLs))
	return sum, base
}

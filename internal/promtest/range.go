package promtest

import (
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// QueryRange runs a range query from start to end, one point every step,
// and returns the label sets of the series it answers (each with the
// number of points it has).
func (p *Server) QueryRange(expr string, start, end time.Time, step time.Duration) ([]Sample, error) {
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Values [][]any           `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	q := url.Values{"query": {expr}, "start": {unixTime(start)}, "end": {unixTime(end)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}}
	if err := p.get("/api/v1/query_range", q, &r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	out := make([]Sample, len(r.Data.Result))
	for i, s := range r.Data.Result {
		out[i] = Sample{Metric: s.Metric, Value: float64(len(s.Values))}
	}
	return out, nil
}

func unixTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

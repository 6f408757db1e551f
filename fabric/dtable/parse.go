package dtable

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/opasim/opasim/problem"
)

// ParseSL reads the CLI form NAME:DISTANCE:MTU:SHARE of one SL, e.g.
// "VO:2:2:0.1" (distance in entries, MTU in credits, share a fraction).
// Spaces around fields are ignored. It checks each field on its own (name,
// 1 ≤ distance ≤ MaxEntries, 1 ≤ MTU ≤ MaxCredits, 0 < share ≤ 1) and
// returns every problem at once; what depends on the other SLs or on N is
// left to Request.Validate.
func ParseSL(s string) (SLRequest, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 4 {
		return SLRequest{}, fmt.Errorf("SL %q: want NAME:DISTANCE:MTU:SHARE (e.g. VO:2:2:0.1), got %d field(s)", s, len(parts))
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var ps problems
	sl := SLRequest{Name: parts[0]}
	where := "SL " + parts[0]
	if !validName(parts[0]) {
		where = "SL " + strconv.Quote(parts[0])
	}
	ps.name(where, sl.Name)
	sl.Distance = ps.atoi(where, "distance", parts[1], MaxEntries)
	sl.MTU = ps.atoi(where, "mtu", parts[2], MaxCredits)
	sl.Share = ps.share(where, parts[3])
	if len(ps) > 0 {
		return SLRequest{}, problem.List(ps).Err()
	}
	return sl, nil
}

// String is the NAME:DISTANCE:MTU:SHARE form ParseSL reads.
func (s SLRequest) String() string {
	return fmt.Sprintf("%s:%d:%d:%s", s.Name, s.Distance, s.MTU, strconv.FormatFloat(s.Share, 'g', -1, 64))
}

func (ps *problems) atoi(where, field, text string, hi int) int {
	v, err := strconv.Atoi(text)
	if err != nil {
		ps.add(where, field, "%q is not an integer (allowed [1, %d])", text, hi)
		return 0
	}
	ps.intIn(where, field, v, 1, hi)
	return v
}

func (ps *problems) share(where, text string) float64 {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		ps.add(where, "share", "%q is not a number (allowed (0, 1])", text)
		return 0
	}
	checkShare(ps, where, v)
	return v
}

// LoadRequest reads the YAML file form of a Request strictly (unknown
// keys and a second document are errors) and validates it, returning every
// problem at once:
//
//	entries: 128
//	gmtu: 16
//	w: 8
//	k: 2
//	sls:
//	  - {name: VO, distance: 2, mtu: 2, share: 0.1}
func LoadRequest(r io.Reader) (Request, error) {
	var req Request
	if err := decodeStrict(r, &req, "request"); err != nil {
		return Request{}, err
	}
	if err := req.Validate(); err != nil {
		return Request{}, err
	}
	return req, nil
}

package dtable

import (
	"errors"
	"strings"
	"testing"
)

// with returns a copy of table9 changed by f.
func with(f func(r *Request)) Request {
	r := table9
	r.SLs = append([]SLRequest(nil), table9.SLs...)
	f(&r)
	return r
}

// TestRefusals: one case per kind of refusal; each message names the SL
// or field, the value, the bound and the amount (numbers by hand).
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		req  Request
		want string
	}{
		{"above maxφ", with(func(r *Request) { r.SLs[2].Share, r.SLs[1].Share = 0.6, 0.2 }),
			"SL CL: share 0.6 is above maxφ 0.5 by 0.1 (n=16 entries, w=8, k=2)"},
		{"below minφ", with(func(r *Request) { r.SLs[0].Share, r.SLs[1].Share = 0.01, 0.39 }),
			"SL VO: share 0.01 is below minφ 0.03125 by 0.02125 (n=64 entries, MTU=2, pool=4096)"},
		{"k above w", with(func(r *Request) { r.K = 9 }),
			"k 9 is above w 8 by 1"},
		{"entries do not fit", with(func(r *Request) { r.SLs[4].Distance = 4 }),
			"sls: entries n_i = N/distance_i sum to 152 (VO 64, VI 32, CL 16, BE 8, BK 32), above entries 128 by 24"},
		{"distance does not divide", with(func(r *Request) { r.SLs[1].Distance = 3 }),
			"SL VI: distance 3 does not divide entries 128 (128 mod 3 = 2)"},
		{"shares do not sum to 1", with(func(r *Request) { r.SLs[1].Share = 0.2 }),
			"sls: shares sum to 0.9, not 1 (off by -0.1, tolerance 1e-06)"},
		{"MTU above GMTU", with(func(r *Request) { r.SLs[3].MTU = 32 }),
			"SL BE: mtu 32 is above gmtu 16 by 16"},
		{"entries not positive", with(func(r *Request) { r.Entries = 0 }),
			"entries 0 must be positive (allowed [1, 4096])"},
		{"entries above limit", with(func(r *Request) { r.Entries = 8192 }),
			"entries 8192 is above the limit 4096 by 4096"},
		{"gmtu not positive", with(func(r *Request) { r.GMTU = -1 }), "gmtu -1 must be positive"},
		{"w not positive", with(func(r *Request) { r.W = 0 }), "w 0 must be positive"},
		{"distance not positive", with(func(r *Request) { r.SLs[0].Distance = 0 }),
			"SL VO: distance 0 must be positive"},
		{"mtu not positive", with(func(r *Request) { r.SLs[0].MTU = 0 }), "SL VO: mtu 0 must be positive"},
		{"share not positive", with(func(r *Request) { r.SLs[0].Share = -0.1 }),
			"SL VO: share -0.1 must be positive (allowed (0, 1])"},
		{"share above 1", with(func(r *Request) { r.SLs[0].Share = 1.5 }),
			"SL VO: share 1.5 is above 1 by 0.5"},
		{"no SLs", Request{Entries: 8, GMTU: 1, W: 1, K: 1}, "sls is empty"},
		{"bad name", with(func(r *Request) { r.SLs[0].Name = "V O" }), `sls[0]: name "V O" is not a valid SL name`},
		{"duplicate name", with(func(r *Request) { r.SLs[4].Name = "BE" }), `sls[4]: name "BE" is already used by sls[3]`},
	} {
		_, err := Configure(c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant it to contain %q", c.name, err, c.want)
		}
	}
}

// TestAllProblemsAtOnce: four independent problems, four Problems.
func TestAllProblemsAtOnce(t *testing.T) {
	req := with(func(r *Request) {
		r.K = 9
		r.SLs[1].Distance = 3
		r.SLs[3].MTU = 32
		r.SLs[4].Share = 0
	})
	err := req.Validate()
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		t.Fatalf("err = %v, want a joined error", err)
	}
	var fields []string
	for _, e := range joined.Unwrap() {
		var p *Problem
		if !errors.As(e, &p) {
			t.Fatalf("%v is not a *Problem", e)
		}
		fields = append(fields, p.Where+"."+p.Field)
	}
	want := ".k, SL VI.distance, SL BE.mtu, SL BK.share, sls.shares"
	if got := strings.Join(fields, ", "); got != want {
		t.Errorf("problems at %s, want %s\n%v", got, want, err)
	}
}

// TestBoundsAreInclusive: φ exactly on minφ or maxφ is accepted (CL 0.5 =
// maxφ; with the VI share moved, BE and BK sit on minφ 0.03125).
func TestBoundsAreInclusive(t *testing.T) {
	req := with(func(r *Request) {
		r.SLs[3].Share, r.SLs[4].Share, r.SLs[1].Share = 0.03125, 0.03125, 0.3375
	})
	if err := req.Validate(); err != nil {
		t.Errorf("shares on the bounds refused: %v", err)
	}
}
